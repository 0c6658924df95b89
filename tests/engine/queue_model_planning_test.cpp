// Planning each module for the traffic it will get (engine/cost/queue_model_planning.h,
// module_arrivals.h). Every figure here is simulated time from seeded runs, so it is the same on
// any machine and under any load.
#include "engine/cost/queue_model_planning.h"

#include <algorithm>
#include <gtest/gtest.h>

#include "engine/cost/random_workload.h"
#include "tests/support/cost_fixture.h"
#include "tests/support/cost_plan_checker.h"

namespace servescope::engine {
namespace {

TEST(ModuleArrivals, ASourceGetsTheWorkloadAndAChildItsParentsBatches) {
  const auto chain = test::cost_chain(
      {test::cost_module("M2", 50, test::piccolo_m2()), test::cost_module("M3", 40, test::piccolo_m3())}, 0.9);
  const auto plan = plan_cost(chain, cost_plan_preset("piccolo"));
  ASSERT_TRUE(plan.feasible) << plan.reason;
  const auto a = module_arrivals(chain, CostDag(chain), plan, 4.0);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].burst, 1.0);
  EXPECT_EQ(a[0].spacing_shape, 4.0);  // the workload's process
  int parent_batch = 0;
  for (const auto& t : plan.modules[0].tiers)
    parent_batch = std::max(parent_batch, plan.problem.modules[0].configs[t.config].batch);
  EXPECT_DOUBLE_EQ(a[1].burst, parent_batch * 40.0 / 50.0);
  EXPECT_DOUBLE_EQ(a[1].spacing_shape, parent_batch);
  EXPECT_DOUBLE_EQ(a[1].rate_rps, 40.0);
}

TEST(ModuleArrivals, InstantsKeepTheRateAndComeInBursts) {
  const ModuleArrivals poisson{100, 1, 1};
  const auto once = arrival_instants(poisson, Duration::seconds(60), 5);
  EXPECT_EQ(once, arrival_instants(poisson, Duration::seconds(60), 5));  // seeded
  EXPECT_NE(once, arrival_instants(poisson, Duration::seconds(60), 6));
  EXPECT_NEAR(static_cast<double>(once.size()), 6000, 400);  // 5 σ of a Poisson count
  EXPECT_TRUE(std::ranges::is_sorted(once));
  const auto bursts = arrival_instants({100, 4, 8}, Duration::seconds(60), 5);
  ASSERT_EQ(bursts.size() % 4, 0u);
  for (std::size_t k = 0; k < bursts.size(); k += 4)
    EXPECT_EQ(bursts[k], bursts[k + 3]);
  EXPECT_NEAR(static_cast<double>(bursts.size()), 6000, 400);
  EXPECT_TRUE(arrival_instants({0, 1, 1}, Duration::seconds(60), 5).empty());
}

TEST(QueueModelPlanning, ModulesThatMissGetHeadroomUntilTheModelHoldsThem) {
  QueueModelOptions model;
  model.target_miss = 0.01;
  int raised = 0, held = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const auto problem = random_cost_problem(seed);
    const auto options = cost_plan_preset("harpagon");
    const auto smooth = plan_cost(problem, options);
    ASSERT_TRUE(smooth.feasible) << problem.name;
    QueueModelReport report;
    const auto plan = plan_cost_for_queueing(problem, options, {}, model, &report);
    ASSERT_TRUE(plan.feasible) << problem.name << ": " << plan.reason;
    EXPECT_TRUE(test::check_cost_plan(problem, plan).empty()) << problem.name;
    EXPECT_GE(plan.cost, smooth.cost * (1 - 1e-9)) << problem.name;  // headroom is never free
    QueueModelReport again;
    EXPECT_EQ(plan_cost_for_queueing(problem, options, {}, model, &again).cost, plan.cost) << problem.name;  // seeded
    EXPECT_EQ(again.miss, report.miss) << problem.name;
    ASSERT_EQ(report.miss.size(), problem.modules.size());
    held += report.held;
    for (std::size_t m = 0; m < problem.modules.size(); ++m) {
      EXPECT_DOUBLE_EQ(plan.problem.modules[m].rate_rps, problem.modules[m].rate_rps);  // serves the real rates
      raised += plan.modules[m].headroom_rps > 0;
      if (report.held) {
        EXPECT_LE(report.miss[m], model.target_miss) << problem.name << " module " << m;
      }
    }
    // A plan the model holds from the start is the smooth plan.
    if (report.rounds == 0) {
      EXPECT_EQ(plan.cost, smooth.cost) << problem.name;
    }
  }
  EXPECT_GT(raised, 3);  // the smooth plans do miss under Poisson traffic
  EXPECT_GE(held, 5);
}

}  // namespace
}  // namespace servescope::engine
