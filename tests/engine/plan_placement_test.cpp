// Plan placement: what the cluster editor draws on its chips is where the simulator runs the
// plan. Every vGPU of a pipeline plan and every glet of a gpu-let plan lands on a GPU of its
// type, no GPU carries more than all of itself, and a plan the cluster cannot hold is refused.
// And the summary the comparison table shows, read as strictly as the plan is loaded.
#include "engine/planning/plan_placement.h"

#include <algorithm>
#include <gtest/gtest.h>

#include "engine/planning/plan_diagram.h"
#include "engine/serving/stored_plan.h"
#include "engine/systems/plan_to_run.h"
#include "engine/systems/scenario_planner.h"
#include "engine/systems/scenario_simulation.h"
#include "engine/timeline/timeline_data.h"
#include "model/core/error.h"
#include "model/io/document.h"
#include "tests/support/glet_fixture.h"

namespace servescope::engine {
namespace {

void expect_consistent(const PlanPlacement& placement, const Scenario& scenario) {
  ASSERT_TRUE(placement.placed);
  ASSERT_EQ(placement.gpus.size(), static_cast<std::size_t>(scenario.cluster.total_gpus()));
  for (const auto& g : placement.gpus) {
    double sum = 0;
    for (const auto& s : g.shares)
      sum += s.share.fraction();
    EXPECT_LE(sum, 1.0 + 1e-9) << g.name;
    EXPECT_EQ(g.gpu_type, scenario.cluster.nodes[g.node].gpu) << g.name;
  }
}

TEST(PlanPlacement, PipelineVgpusLandOnGpusOfTheirType) {
  const auto project = load_project("builtin:projects/ppipe-demo.json");
  ScenarioPlanRequest request;
  request.system = "np";
  const auto result = plan_scenario(project.scenario, request);
  ASSERT_TRUE(result.summary.feasible) << result.summary.note;
  const auto placement = place_plan(project.scenario, result.plan);
  expect_consistent(placement, project.scenario);
  int vgpus = 0, placed = 0;
  for (const auto& p : result.plan["pipelines"])
    for (const auto& part : p["partitions"])
      vgpus += part["vgpus"].get<int>();
  for (const auto& g : placement.gpus)
    for (const auto& s : g.shares) {
      ++placed;
      EXPECT_NE(s.detail.find("blocks"), std::string::npos);
    }
  EXPECT_EQ(placed, vgpus);
}

TEST(PlanPlacement, GletsLandOnTheSplitTypeAndCostPlansHaveNone) {
  const auto scenario = parse_document(test::glet_scenario_json(3000), "glet.json");
  const auto& s = std::get<Scenario>(scenario.content);
  ScenarioPlanRequest request;
  request.system = "glet";
  const auto result = plan_scenario(s, request);
  ASSERT_TRUE(result.summary.feasible) << result.summary.note;
  const auto placement = place_plan(s, result.plan);
  expect_consistent(placement, s);
  int glets = 0;
  for (const auto& gpu : result.plan["layout"])
    for (const auto& glet : gpu["glets"])
      glets += glet["models"].empty() ? 0 : 1;
  int placed = 0;
  for (const auto& g : placement.gpus)
    placed += static_cast<int>(g.shares.size());
  EXPECT_EQ(placed, glets);

  // A cluster with fewer GPUs than the plan uses is refused, naming the count.
  auto small = s;
  small.cluster.nodes.resize(1);
  small.cluster.nodes[0].count = 1;
  small.cluster.nodes[0].gpu_count = 1;
  ASSERT_GT(result.summary.gpus, 1);
  try {
    (void)place_plan(small, result.plan);
    ADD_FAILURE() << "a plan for " << result.summary.gpus << " GPUs placed on one";
  } catch (const QueryError& e) {
    EXPECT_NE(std::string(e.what()).find("the cluster has 1"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(place_plan(s, nlohmann::json{{"kind", "cost-plan"}}).placed);
}

// Picking a pool or glet in the Plans tab finds its part everywhere: every selectable diagram
// item has shares in the placement (a pool as many as its vGPUs), and each share's slot is the
// row a run of the plan draws it on.
void expect_items_reach_their_rows(const Scenario& scenario, const nlohmann::json& plan) {
  const auto placement = place_plan(scenario, plan);
  const auto diagram = diagram_of(read_plan(plan, "plan"));
  SimulationSpec spec;
  use_plan(spec, plan, "plan");
  spec.duration = Duration::milliseconds(200);
  spec.warmup = Duration();
  spec.timeline = true;
  const auto timeline = timeline_of(simulate(scenario, spec));
  std::size_t items = 0, shares = 0;
  for (const auto& item : diagram.items) {
    if (item.id.empty() || item.free) continue;
    ++items;
    const auto found = placement.shares_of(item.id);
    ASSERT_FALSE(found.empty()) << item.id;
    if (item.kind == DiagramItem::Kind::Pool) {
      const auto count = "×" + std::to_string(found.size()) + " (";
      EXPECT_TRUE(std::ranges::any_of(item.chips, [&](const std::string& c) { return c.starts_with(count); }))
          << item.id << " has " << found.size() << " shares";
    }
    for (const auto* share : found) {
      ++shares;
      ASSERT_LT(share->slot, timeline.gpus.size()) << item.id;
      EXPECT_EQ(timeline.gpus[share->slot], share->slot_name) << item.id;
    }
  }
  EXPECT_GT(items, 1u);
  std::size_t placed = 0;
  for (const auto& g : placement.gpus)
    placed += g.shares.size();
  EXPECT_EQ(shares, placed);  // every share belongs to a selectable item
  EXPECT_TRUE(placement.shares_of("pool:nothing/1/1").empty());
}

TEST(PlanPlacement, PickedItemsFindTheirSharesAndRunRows) {
  const auto project = load_project("builtin:projects/ppipe-demo.json");
  ScenarioPlanRequest request;
  request.system = "ppipe";
  expect_items_reach_their_rows(project.scenario, plan_scenario(project.scenario, request).plan);
  const auto document = parse_document(test::glet_scenario_json(3000), "glet.json");
  const auto& glet = std::get<Scenario>(document.content);
  request.system = "glet";
  expect_items_reach_their_rows(glet, plan_scenario(glet, request).plan);
}

// Thousands of GPUs, most on a few big servers, another type between them and many small servers
// after: the placement is still the plain definition. A GPU's index in its server counts the GPUs
// of that server listed before it, and the k-th GPU a gpu-let plan uses is the k-th GPU of the
// split type in cluster order, carrying that GPU's glets.
TEST(PlanPlacement, ThousandsOfGpusArePlacedAsThePlainDefinitionSays) {
  const auto document = parse_document(test::glet_scenario_json(3000), "glet.json");
  auto s = std::get<Scenario>(document.content);
  ScenarioPlanRequest request;
  request.system = "glet";
  const auto result = plan_scenario(s, request);
  ASSERT_TRUE(result.summary.feasible) << result.summary.note;

  const auto type = s.cluster.nodes[0].gpu;
  const auto node = [](const std::string& name, const std::string& gpu, int gpus, int servers) {
    Node n;
    n.name = name;
    n.gpu = gpu;
    n.gpu_count = gpus;
    n.count = servers;
    return n;
  };
  s.cluster.nodes = {node("big", type, 1000, 2), node("other", "V100", 500, 1), node("small", type, 8, 125)};
  // The planned GPUs over and over, for 2,500 of the 3,000 GPUs of the split type.
  auto plan = result.plan;
  nlohmann::json used = nlohmann::json::array();
  for (const auto& gpu : result.plan["layout"])
    for (const auto& glet : gpu["glets"])
      if (!glet["models"].empty()) {
        used.push_back(gpu);
        break;
      }
  ASSERT_FALSE(used.empty());
  nlohmann::json layout = nlohmann::json::array();
  while (layout.size() < 2500)
    layout.push_back(used[layout.size() % used.size()]);
  plan["layout"] = layout;
  plan["gpus"] = layout.size();

  const auto placement = place_plan(s, plan);
  expect_consistent(placement, s);
  ASSERT_EQ(placement.gpus.size(), 3500u);
  const auto servers = s.cluster.servers();
  std::size_t next = 0;
  for (std::size_t i = 0; i < placement.gpus.size(); ++i) {
    const auto& g = placement.gpus[i];
    ASSERT_LT(g.server, servers.size()) << g.name;
    const auto before = std::count_if(placement.gpus.begin(), placement.gpus.begin() + static_cast<std::ptrdiff_t>(i),
                                      [&](const PlacedGpu& p) { return p.server == g.server; });
    ASSERT_EQ(g.gpu_in_server, before) << g.name;
    ASSERT_EQ(g.name, servers[g.server].name + "/gpu" + std::to_string(before));
    ASSERT_EQ(g.node, servers[g.server].node_index) << g.name;
    std::vector<PlacedShare> expected;
    if (g.gpu_type == type && next < layout.size()) {
      for (const auto& glet : layout[next]["glets"]) {
        if (glet["models"].empty()) continue;
        std::string names;
        for (const auto& hosted : glet["models"])
          names += (names.empty() ? "" : " + ") + hosted["model"].get<std::string>();
        PlacedShare share;
        share.model = names;
        share.share = GpuShare::percent(glet["size_percent"].get<int>());
        expected.push_back(share);
      }
      ++next;
    }
    ASSERT_EQ(g.shares.size(), expected.size()) << g.name;
    for (std::size_t k = 0; k < expected.size(); ++k) {
      EXPECT_EQ(g.shares[k].model, expected[k].model) << g.name;
      EXPECT_EQ(g.shares[k].share, expected[k].share) << g.name;
    }
  }
  EXPECT_EQ(next, layout.size());
}

// A plan kept in a project is summarised through the readers plans are loaded with: a damaged
// plan is an InputError naming the file and the place, not zeros or a JSON library exception.
TEST(PlanSummary, ReadsPlansAsStrictlyAsTheyAreLoaded) {
  const auto document = parse_document(test::glet_scenario_json(3000), "glet.json");
  ScenarioPlanRequest request;
  request.system = "glet";
  const auto result = plan_scenario(std::get<Scenario>(document.content), request);
  const auto kept = summarize_plan(result.plan, "p.json");
  EXPECT_EQ(kept.system, "glet");
  EXPECT_EQ(kept.family, PlannerFamily::Glet);
  EXPECT_EQ(kept.feasible, result.summary.feasible);
  EXPECT_EQ(kept.gpus, result.summary.gpus);
  EXPECT_EQ(kept.throughput_rps, result.summary.throughput_rps);

  // A cost plan as the writer makes it (engine/cost/cost_plan_json.h), with what a plan page shows.
  nlohmann::json cost = {
      {"schema_version", 1},
      {"kind", "cost-plan"},
      {"system", "harpagon"},
      {"feasible", true},
      {"slo_us", 200000},
      {"total_cost", 3.5},
      {"machines", 4},
      {"e2e_wcl_us", 150000},
      {"modules",
       {{{"id", "detect"},
         {"kind", "dnn"},
         {"model", "resnet50"},
         {"rate_rps", 2000},
         {"budget_us", 120000},
         {"wcl_us", 100000},
         {"cost", 3.5},
         {"tiers", {{{"gpu", "V100"}, {"batch", 8}, {"machines", 4}, {"rate_rps", 2000}, {"wcl_us", 100000}}}}},
        {{"id", "crop"}, {"kind", "cpu"}, {"budget_us", 60000}, {"wcl_us", 50000}}}},
      {"edges", nlohmann::json::array({nlohmann::json::array({"detect", "crop"})})},
      {"verification", {{"slo_attainment", 0.995}}}};
  const auto record = std::get<CostPlanRecord>(read_plan(cost, "p.json"));
  EXPECT_EQ(record.modules.size(), 2u);
  EXPECT_EQ(record.modules[0].tiers.at(0).gpu, "V100");
  EXPECT_EQ(record.modules[0].wcl_at_rate, record.modules[0].wcl);  // older plans: no headroom
  EXPECT_TRUE(record.modules[1].cpu);
  EXPECT_EQ(record.edges.at(0), std::make_pair(std::string("detect"), std::string("crop")));
  const auto summary = summarize_plan(cost);
  EXPECT_EQ(summary.family, PlannerFamily::Cost);
  EXPECT_TRUE(summary.feasible);
  EXPECT_EQ(summary.cost, 3.5);
  EXPECT_EQ(summary.gpus, 4);
  EXPECT_EQ(summary.throughput_rps, 2000.0);
  EXPECT_EQ(summary.note, "checked in the simulator: 99.5 % SLO attainment");

  const auto expect_refused = [](const nlohmann::json& plan, const std::string& where) {
    try {
      (void)summarize_plan(plan, "p.json");
      ADD_FAILURE() << "summarised " << plan.dump();
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "p.json") << e.what();
      EXPECT_EQ(e.where(), where) << e.what();
    }
  };
  auto glet = result.plan;
  glet["models"][0]["assigned_rps"] = "lots";
  expect_refused(glet, "$.models[0].assigned_rps");
  glet = result.plan;
  glet["feasible"] = 1;
  expect_refused(glet, "$.feasible");
  glet = result.plan;
  glet.erase("system");
  expect_refused(glet, "$");
  expect_refused(nlohmann::json::array(), "$");
  expect_refused(nlohmann::json{{"kind", "run-result"}}, "$.kind");
  expect_refused(nlohmann::json{{"kind", "pipeline-plan"}}, "$");
  auto damaged = cost;
  damaged["total_cost"] = "cheap";
  expect_refused(damaged, "$.total_cost");
  damaged = cost;
  damaged["modules"][1]["kind"] = "tpu";
  expect_refused(damaged, "$.modules[1].kind");
  damaged = cost;
  damaged["modules"][0].erase("rate_rps");
  expect_refused(damaged, "$.modules[0]");
  damaged = cost;
  damaged["verification"]["slo_attainment"] = nullptr;
  expect_refused(damaged, "$.verification.slo_attainment");
  // The details a plan page shows are read as strictly as the figures.
  damaged = cost;
  damaged["modules"][0]["tiers"][0]["batch"] = 0;
  expect_refused(damaged, "$.modules[0].tiers[0].batch");
  damaged = cost;
  damaged["edges"][0] = nlohmann::json::array({"detect"});
  expect_refused(damaged, "$.edges[0]");
}

}  // namespace
}  // namespace servescope::engine
