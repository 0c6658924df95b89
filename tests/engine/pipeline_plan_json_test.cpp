// The pipeline-plan file: what `plan` writes reads back to the same plan, and a damaged file is
// refused with the place of the damage. Plans come from the planner on the shared fixture, and
// pass the independent checker before they are written.
#include "engine/ppipe/pipeline_plan_json.h"

#include <gtest/gtest.h>

#include "engine/ppipe/scenario_planning.h"
#include "model/core/error.h"
#include "model/io/document.h"
#include "tests/support/pipeline_fixture.h"
#include "tests/support/pipeline_plan_checker.h"
#include "tests/support/test_support.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

struct Planned {
  Scenario scenario;
  PlanningInput input;
  PipelinePlan plan;
};

Planned plan_fixture(const std::string& system) {
  test::TempDir dir;
  Planned p{load_scenario(dir.write("s.json", test::kPipelineScenarioJson)), {}, {}};
  p.input = planning_input(p.scenario, {"seg-poisson"});
  p.plan = plan_pipelines(system, p.input, PpipeOptions{});
  return p;
}

}  // namespace

TEST(PipelinePlanJson, EveryPlannerRoundTripsAndPassesTheChecker) {
  for (const auto& system : pipeline_planners()) {
    SCOPED_TRACE(system);
    const auto p = plan_fixture(system);
    EXPECT_EQ(p.plan.system, system);
    ASSERT_FALSE(p.plan.pipelines.empty());
    EXPECT_EQ(test::check_pipeline_plan(p.plan, {p.input.models, p.input.gpus, 0.4, true}), std::vector<std::string>{});
    const auto json = pipeline_plan_to_json(p.plan, p.scenario.name);
    EXPECT_EQ(json["kind"], "pipeline-plan");
    const auto back = pipeline_plan_from_json(json, "plan.json");
    EXPECT_EQ(pipeline_plan_to_json(back, p.scenario.name), json);
    EXPECT_DOUBLE_EQ(back.total_throughput_rps(), p.plan.total_throughput_rps());
  }
}

TEST(PipelinePlanJson, DamageIsReportedWithItsPlace) {
  const auto p = plan_fixture("ppipe");
  const auto json = pipeline_plan_to_json(p.plan, p.scenario.name);
  auto expect_refusal = [](const nlohmann::json& bad, const std::string& where) {
    try {
      pipeline_plan_from_json(bad, "bad.json");
      ADD_FAILURE() << "accepted a damaged plan; expected a complaint about " << where;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
    }
  };
  auto batch = json;
  batch["pipelines"][0]["batch"] = 0;
  expect_refusal(batch, "batch");
  auto kind = json;
  kind["kind"] = "run-result";
  expect_refusal(kind, "kind");
  auto blocks = json;
  blocks["pipelines"][0]["partitions"][0]["blocks"] = nlohmann::json::array({3, 1});
  expect_refusal(blocks, "blocks");
}
