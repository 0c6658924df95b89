// The exact module scheduler (engine/cost/frontier_scheduler.h): every answer is a plan of the
// brute force's module space within the budget, never dearer than Alg. 1, and the cheapest point
// of the module's frontier; budgets past the SLO get the plan at the SLO.
#include "engine/cost/frontier_scheduler.h"

#include <gtest/gtest.h>

#include "engine/cost/random_workload.h"
#include "tests/support/cost_fixture.h"
#include "tests/support/durations.h"

namespace servescope::engine {
namespace {

using ::servescope::test::s;

TEST(FrontierScheduler, BeatsTheFallbackWhereAlg1FailsOnHarpagonT13) {
  // Harpagon T13: at 0.33 s Alg. 1 fails and its fallback pads to 4.0; the frontier has 3.6875.
  const auto m = test::cost_module("M2", 100, test::harpagon_m2());
  FrontierScheduler exact({.limit = s(3.0)});
  const auto plan = exact.schedule(m, 100, s(0.33));
  ASSERT_TRUE(plan.has_value());
  EXPECT_TRUE(plan->feasible);
  EXPECT_LE(plan->wcl, s(0.33) + kLatencyTolerance);
  EXPECT_NEAR(plan->cost, 3.6875, 1e-9);
  EXPECT_TRUE(in_search_space(*plan, m));
  // Between frontier points the answer is the faster point's plan; below the fastest, none.
  EXPECT_NEAR(exact.schedule(m, 100, s(0.50))->cost, 3.6875, 1e-9);
  EXPECT_FALSE(exact.schedule(m, 100, s(0.10)).has_value());
  // Past the limit: the plan at the limit (3.125 at 2.25 s is within 3.0 s).
  EXPECT_NEAR(exact.schedule(m, 100, s(30.0))->cost, 3.125, 1e-9);
  // Without dummies no answer pads, and none is cheaper than with them.
  FrontierScheduler plain({.limit = s(3.0), .padding = false});
  for (const double budget : {0.15, 0.2, 0.33, 0.6, 1.2, 2.5}) {
    const auto padded = exact.schedule(m, 100, s(budget));
    const auto unpadded = plain.schedule(m, 100, s(budget));
    if (!unpadded) continue;
    EXPECT_EQ(unpadded->dummy_rps, 0.0) << budget;
    ASSERT_TRUE(padded.has_value()) << budget;
    EXPECT_LE(padded->cost, unpadded->cost * (1 + 1e-9)) << budget;
  }
}

TEST(FrontierScheduler, NeverDearerThanAlg1AndAlwaysInTheSpace) {
  int cheaper = 0, answers = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const auto problem = random_cost_problem(seed);
    ModuleSchedulerOptions alg1;
    alg1.each_alone = true;
    FrontierScheduler exact({.limit = problem.slo});
    for (const auto& m : problem.modules) {
      if (m.is_fixed()) continue;
      for (const double share : {0.1, 0.25, 0.5, 1.0}) {
        const Duration budget = Duration::from_s(problem.slo.to_s() * share);
        const auto greedy = schedule_module(m, m.rate_rps, budget, alg1);
        const auto plan = exact.schedule(m, m.rate_rps, budget);
        if (!plan) {
          // Nothing in the space fits, so Alg. 1 (whose plans are in it) cannot fit either.
          EXPECT_FALSE(greedy.feasible && in_search_space(greedy, m)) << problem.name << " " << m.id;
          continue;
        }
        ++answers;
        EXPECT_TRUE(plan->feasible);
        EXPECT_LE(plan->wcl, budget + kLatencyTolerance) << problem.name << " " << m.id;
        EXPECT_TRUE(in_search_space(*plan, m)) << problem.name << " " << m.id;
        EXPECT_GE(plan->served_rps(), m.rate_rps * (1 - 1e-9)) << problem.name << " " << m.id;
        if (greedy.feasible && in_search_space(greedy, m)) {
          EXPECT_LE(plan->cost, greedy.cost * (1 + 1e-9)) << problem.name << " " << m.id;
          cheaper += plan->cost < greedy.cost * (1 - 1e-9);
        }
      }
    }
  }
  EXPECT_GT(answers, 200);
  EXPECT_GT(cheaper, 0);  // the point of it: Alg. 1 misses some module optimum on these
}

TEST(FrontierScheduler, ASearchCutShortDefersToAlg1) {
  const auto m = test::cost_module("M2", 100, test::harpagon_m2());
  FrontierScheduler starved({.limit = s(3.0), .max_nodes = 1});
  EXPECT_FALSE(starved.schedule(m, 100, s(0.33)).has_value());
  ModuleSchedulerOptions options;
  options.exact = true;
  SelectedModuleScheduler selected(s(3.0), options);
  EXPECT_TRUE(selected.exact());
  EXPECT_NEAR(selected.schedule(m, 100, s(0.33)).cost, 3.6875, 1e-9);
  options.dispatch = Dispatch::RoundRobin;  // the frontier is of throughput-cost dispatch only
  SelectedModuleScheduler round_robin(s(3.0), options);
  EXPECT_FALSE(round_robin.exact());
  EXPECT_TRUE(round_robin.steps(m, 100).empty());
}

TEST(FrontierScheduler, StepsAreTheFrontierPointsTheSplitIsOffered) {
  // Harpagon T13's frontier (cost_module_test.cpp): nine points up to 3 s, each a step of the
  // module's cost curve, named by the configuration its first tier runs.
  const auto m = test::cost_module("M2", 100, test::harpagon_m2());
  ModuleSchedulerOptions options;
  options.exact = true;
  SelectedModuleScheduler selected(s(3.0), options);
  const auto steps = selected.steps(m, 100);
  ASSERT_EQ(steps.size(), 9u);
  for (std::size_t k = 0; k < steps.size(); ++k) {
    EXPECT_LT(steps[k].second, m.configs.size());
    if (k > 0) {
      EXPECT_GT(steps[k].first, steps[k - 1].first);
    }
    // The plan at each step's latency is that step's: cheaper than the step before.
    const auto here = selected.schedule(m, 100, steps[k].first);
    EXPECT_LE(here.wcl, steps[k].first + kLatencyTolerance);
    if (k > 0) {
      EXPECT_LT(here.cost, selected.schedule(m, 100, steps[k - 1].first).cost);
    }
  }
  EXPECT_NEAR(steps[4].first.to_s(), 0.33, 1e-4);
}

}  // namespace
}  // namespace servescope::engine
