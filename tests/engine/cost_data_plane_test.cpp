// A kept cost plan runs through the common serving seam (engine/systems/cost/cost_data_plane.h)
// as every other system does: read back from its JSON, made runnable against the scenario with
// the same tiers and cost, and simulated with the frontend on the plan's machines, agreeing with
// the cost planners' own check on the plan as the planner made it.
#include <gtest/gtest.h>

#include "engine/cost/cost_simulation.h"
#include "engine/cost/runnable_cost_plan.h"
#include "engine/serving/plan_request.h"
#include "engine/serving/run_result_json.h"
#include "engine/systems/plan_to_run.h"
#include "engine/systems/scenario_planner.h"
#include "engine/systems/scenario_simulation.h"
#include "model/core/error.h"
#include "model/io/document.h"

namespace servescope::engine {
namespace {

struct Planned {
  Scenario scenario;
  ScenarioPlanResult result;
};

Planned harpagon_on_the_demo() {
  Planned p{project_from_document(load_document("builtin:projects/cost-demo.json"), "cost-demo").scenario, {}};
  ScenarioPlanRequest request;
  request.system = "harpagon";
  p.result = plan_scenario(p.scenario, request);
  return p;
}

TEST(CostDataPlane, AKeptPlanIsRebuiltWithItsTiersAndCost) {
  const auto p = harpagon_on_the_demo();
  const auto& planned = std::get<CostScenarioOutcome>(p.result.planned).plan;
  ASSERT_TRUE(planned.feasible);
  const auto rebuilt = runnable_cost_plan(cost_plan_record_from_json(p.result.plan, "plan"), p.scenario);
  EXPECT_EQ(rebuilt.dispatch, planned.dispatch);
  ASSERT_EQ(rebuilt.modules.size(), planned.modules.size());
  EXPECT_EQ(rebuilt.machines(), planned.machines());
  for (std::size_t m = 0; m < planned.modules.size(); ++m) {
    const auto& a = planned.modules[m];
    const auto& b = rebuilt.modules[m];
    ASSERT_EQ(a.tiers.size(), b.tiers.size()) << m;
    EXPECT_NEAR(a.cost, b.cost, 1e-9 * std::max(1.0, a.cost)) << m;
    for (std::size_t t = 0; t < a.tiers.size(); ++t) {
      const auto& ca = planned.problem.modules[m].configs[a.tiers[t].config];
      const auto& cb = rebuilt.problem.modules[m].configs[b.tiers[t].config];
      EXPECT_EQ(ca.hw, cb.hw);
      EXPECT_EQ(ca.batch, cb.batch);
      EXPECT_EQ(ca.concurrency, cb.concurrency);
      EXPECT_EQ(ca.duration, cb.duration);
      EXPECT_DOUBLE_EQ(a.tiers[t].machines, b.tiers[t].machines);
      EXPECT_NEAR(a.tiers[t].rate_rps, b.tiers[t].rate_rps, 1e-6);
    }
    EXPECT_EQ(rebuilt.budgets[m], planned.budgets[m]);
  }
}

TEST(CostDataPlane, ItRunsInTheSeamAsTheCostCheckRunsIt) {
  const auto p = harpagon_on_the_demo();
  SimulationSpec spec;
  use_plan(spec, p.result.plan, "plan");
  EXPECT_EQ(spec.system, "cost");
  spec.duration = Duration::seconds(30);
  spec.warmup = Duration::seconds(5);
  spec.timeline = true;
  const auto run = simulate(p.scenario, spec);
  EXPECT_EQ(run.system, "cost");
  EXPECT_EQ(run.plan_system, "harpagon");
  const auto summary = summarize_run(run);
  EXPECT_GT(summary.completed, 10'000u);

  // The planners' own check of the plan as planned, on the same arrivals' rate and length.
  CostSimulationOptions options;
  options.duration = spec.duration;
  options.warmup = spec.warmup;
  const auto& planned = std::get<CostScenarioOutcome>(p.result.planned).plan;
  const auto check = simulate_cost_plan(planned, options);
  EXPECT_NEAR(summary.slo_attainment, check.app.attainment(), 0.01);
  EXPECT_GE(summary.slo_attainment, 0.99);

  // Each batch runs on a machine of its own module: a slot is named after its module.
  ASSERT_FALSE(run.timeline.empty());
  for (const auto& span : run.timeline) {
    ASSERT_GE(span.model, 1u);
    const auto& module = planned.problem.modules[span.model - 1];
    EXPECT_TRUE(run.gpus[span.gpu].starts_with(module.id + "/")) << run.gpus[span.gpu] << " ran " << module.id;
  }
}

TEST(CostDataPlane, APlanServesItsOwnApplicationOnly) {
  const auto p = harpagon_on_the_demo();
  auto record = p.result.plan;
  record["application"] = "not-this-one";
  SimulationSpec spec;
  use_plan(spec, record, "plan");
  spec.duration = Duration::seconds(2);
  spec.warmup = Duration::seconds(1);
  try {
    simulate(p.scenario, spec);
    ADD_FAILURE() << "a plan of another application ran";
  } catch (const QueryError& e) {
    EXPECT_NE(std::string(e.what()).find("not-this-one"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace servescope::engine
