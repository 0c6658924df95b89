// Plan placement: what the cluster editor draws on its chips is where the simulator runs the
// plan. Every vGPU of a pipeline plan and every glet of a gpu-let plan lands on a GPU of its
// type, no GPU carries more than all of itself, and a plan the cluster cannot hold is refused.
#include "engine/planning/plan_placement.h"

#include <gtest/gtest.h>

#include "engine/planning/scenario_planner.h"
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

}  // namespace
}  // namespace servescope::engine
