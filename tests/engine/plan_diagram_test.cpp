// Plans as diagrams (engine/planning/plan_diagram.h), checked against the plans they draw: a
// pooled-pipeline plan gives one pool per partition with its facts and load, the bottleneck is
// the pool of least capacity, arrows join consecutive pools with their transfer times; a gpu-let
// layout gives one bar per GPU whose glets fill it by size; a cost plan's critical path is the
// path of largest worst-case latency and its ribbon spans that share of the SLO. No two boxes
// overlap and everything lies inside the diagram.
#include "engine/planning/plan_diagram.h"

#include <gtest/gtest.h>

#include "engine/systems/scenario_planner.h"
#include "model/core/text.h"
#include "model/io/document.h"
#include "tests/support/glet_fixture.h"

namespace servescope::engine {
namespace {

using Kind = DiagramItem::Kind;

void expect_laid_out(const PlanDiagram& d) {
  for (std::size_t a = 0; a < d.items.size(); ++a) {
    const auto& i = d.items[a];
    EXPECT_GE(i.x, 0) << i.title;
    EXPECT_GE(i.y, 0) << i.title;
    EXPECT_LE(i.x + i.width, d.width + 1e-6) << i.title;
    EXPECT_LE(i.y + i.height, d.height + 1e-6) << i.title;
    for (std::size_t b = a + 1; b < d.items.size(); ++b) {
      const auto& j = d.items[b];
      const bool apart = i.x + i.width <= j.x + 1e-6 || j.x + j.width <= i.x + 1e-6 || i.y + i.height <= j.y + 1e-6 ||
                         j.y + j.height <= i.y + 1e-6;
      EXPECT_TRUE(apart) << "“" << i.title << "” overlaps “" << j.title << "”";
    }
  }
}

TEST(PlanDiagram, PooledPipelinesAsPpipeDrawsThem) {
  const auto project = load_project("builtin:projects/ppipe-demo.json");
  ScenarioPlanRequest request;
  request.system = "ppipe";
  const auto result = plan_scenario(project.scenario, request);
  ASSERT_TRUE(result.summary.feasible) << result.summary.note;
  const auto plan = std::get<PipelinePlan>(read_plan(result.plan, "plan"));
  const auto d = diagram_of(plan);
  expect_laid_out(d);
  // A plan from before plans kept the bytes draws the time alone.
  auto older_json = result.plan;
  for (auto& pipeline : older_json["pipelines"])
    for (auto& part : pipeline["partitions"])
      part.erase("transfer_bytes");
  const auto older = diagram_of(read_plan(older_json, "plan"));
  for (const auto& a : older.arrows)
    EXPECT_EQ(a.label.find(" · "), std::string::npos) << a.label;
  std::size_t pools = 0, partitions = 0, arrows = 0;
  for (const auto& p : plan.pipelines) {
    partitions += p.partitions.size();
    arrows += p.partitions.size() - 1;
  }
  double largest = 0;
  for (const auto& item : d.items) {
    if (item.kind != Kind::Pool) continue;
    ++pools;
    EXPECT_EQ(item.id.rfind("pool:", 0), 0u);
    EXPECT_EQ(item.chips.size(), 4u) << "GPU, vGPU, batch, count";
    EXPECT_LE(item.load_rps, item.capacity_rps * (1 + 1e-9)) << item.id;
    largest = std::max(largest, item.capacity_rps);
  }
  EXPECT_EQ(pools, partitions);
  EXPECT_EQ(d.arrows.size(), arrows);
  EXPECT_EQ(d.max_capacity_rps, largest);
  // Pipeline by pipeline: the bottleneck is the pool of least capacity, the arrows carry the
  // transfer time of the pool they leave.
  std::size_t at = 0;
  for (const auto& p : plan.pipelines) {
    while (d.items[at].kind != Kind::Pool)
      ++at;
    double least = 1e300;
    for (const auto& part : p.partitions)
      least = std::min(least, part.capacity_rps);
    for (std::size_t k = 0; k < p.partitions.size(); ++k) {
      const auto& pool = d.items[at + k];
      EXPECT_EQ(pool.chips[0], p.partitions[k].gpu);
      EXPECT_EQ(pool.emphasised, p.partitions.size() > 1 && p.partitions[k].capacity_rps <= least) << pool.id;
      if (k > 0) {
        const auto arrow = std::ranges::find(d.arrows, at + k, &DiagramArrow::to);
        ASSERT_NE(arrow, d.arrows.end());
        EXPECT_EQ(arrow->from, at + k - 1);
        EXPECT_NE(arrow->label.find(" ms"), std::string::npos);
        // ...and the bytes it ships: the block boundary's feature map for the whole batch.
        const auto& before = p.partitions[k - 1];
        const auto* profile = project.scenario.profiles.find(p.model);
        ASSERT_NE(profile, nullptr);
        EXPECT_EQ(before.transfer_bytes, profile->cut_bytes(before.blocks.end) * p.batch);
        EXPECT_GT(before.transfer_bytes, 0);
        EXPECT_NE(arrow->label.find(" · " + format_bytes(static_cast<std::uint64_t>(before.transfer_bytes))),
                  std::string::npos)
            << arrow->label;
        EXPECT_LT(d.items[arrow->from].x, pool.x);
      }
    }
    at += p.partitions.size();
  }
}

TEST(PlanDiagram, GletLayoutsFillEachGpuBySize) {
  const auto document = parse_document(test::glet_scenario_json(3000), "glet.json");
  ScenarioPlanRequest request;
  request.system = "glet";
  const auto result = plan_scenario(std::get<Scenario>(document.content), request);
  const auto plan = std::get<GletPlan>(read_plan(result.plan, "plan"));
  const auto d = diagram_of(plan);
  expect_laid_out(d);
  ASSERT_FALSE(plan.layout.gpus.empty());
  for (std::size_t g = 0; g < plan.layout.gpus.size(); ++g) {
    double width = 0, first_x = -1;
    std::size_t glets = 0;
    for (const auto& item : d.items)
      if (item.kind == Kind::Glet && item.id.rfind("glet:" + std::to_string(g) + "/", 0) == 0) {
        if (first_x < 0) first_x = item.x;
        width += item.width;
        ++glets;
        EXPECT_EQ(item.free, item.colour_key.empty());
      }
    EXPECT_EQ(glets, plan.layout.gpus[g].glets.size());
    std::size_t k = 0;
    for (const auto& item : d.items)
      if (item.kind == Kind::Glet && item.id.rfind("glet:" + std::to_string(g) + "/", 0) == 0) {
        EXPECT_NEAR(item.width / width, plan.layout.gpus[g].glets[k++].size_percent / 100.0, 1e-9);
      }
  }
}

TEST(PlanDiagram, CostPlansMarkTheCriticalPathAndItsBudget) {
  // detect → (crop: CPU 50 ms | classify 30 ms) → merge 5 ms; SLO 200 ms. The critical path is
  // detect → crop → merge (100 + 50 + 5 ms).
  const auto module = [](const std::string& id, int wcl_ms, bool cpu) {
    nlohmann::json m = {{"id", id}, {"budget_us", wcl_ms * 1200}, {"wcl_us", wcl_ms * 1000}};
    if (cpu) {
      m["kind"] = "cpu";
    } else {
      m["kind"] = "dnn";
      m["model"] = id + "-net";
      m["rate_rps"] = 100;
      m["cost"] = 1;
      m["tiers"] = {{{"gpu", "T4"}, {"batch", 4}, {"machines", 1}, {"rate_rps", 100}, {"wcl_us", wcl_ms * 1000}}};
    }
    return m;
  };
  const nlohmann::json json = {
      {"schema_version", 1},
      {"kind", "cost-plan"},
      {"system", "harpagon"},
      {"feasible", true},
      {"slo_us", 200000},
      {"total_cost", 3},
      {"machines", 3},
      {"e2e_wcl_us", 155000},
      {"modules",
       {module("detect", 100, false), module("crop", 50, true), module("classify", 30, false),
        module("merge", 5, false)}},
      {"edges", nlohmann::json::array(
                    {nlohmann::json::array({"detect", "crop"}), nlohmann::json::array({"detect", "classify"}),
                     nlohmann::json::array({"crop", "merge"}), nlohmann::json::array({"classify", "merge"})})}};
  const auto d = diagram_of(read_plan(json, "plan"));
  expect_laid_out(d);
  std::map<std::string, const DiagramItem*> modules;
  double ribbon = 0, ribbon_x = -1;
  for (const auto& item : d.items) {
    if (item.kind == Kind::Module) modules[item.id] = &item;
    if (item.kind == Kind::Ribbon) {
      if (ribbon_x >= 0) {
        EXPECT_NEAR(item.x, ribbon_x, 1e-6) << "pieces follow one another";
      }
      ribbon += item.width;
      ribbon_x = item.x + item.width;
    }
  }
  ASSERT_EQ(modules.size(), 4u);
  EXPECT_TRUE(modules["module:detect"]->emphasised);
  EXPECT_TRUE(modules["module:crop"]->emphasised);
  EXPECT_FALSE(modules["module:classify"]->emphasised);
  EXPECT_TRUE(modules["module:merge"]->emphasised);
  // Columns by depth: every edge goes right.
  EXPECT_LT(modules["module:detect"]->x, modules["module:crop"]->x);
  EXPECT_EQ(modules["module:crop"]->x, modules["module:classify"]->x);
  EXPECT_LT(modules["module:crop"]->x, modules["module:merge"]->x);
  std::size_t critical_arrows = 0;
  for (const auto& a : d.arrows)
    critical_arrows += a.emphasised ? 1u : 0u;
  EXPECT_EQ(critical_arrows, 2u);
  // The ribbon spans 155 of the SLO's 200 ms across the diagram's inner width.
  EXPECT_NEAR(ribbon / (d.width - 24), 155.0 / 200.0, 1e-9);
}

}  // namespace
}  // namespace servescope::engine
