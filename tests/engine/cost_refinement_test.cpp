// What we add beyond the papers (docs/reproduction/cost.md "Beyond the papers") to bring the cost
// planners' worst splits within +25 % of the optimum (the pairwise exchange after the split,
// one-configuration plans in the module scheduler), the quantized split's exact search over
// breakpoints (it took 308 s on a 13 s diamond), and the audit: on random workloads with irregular
// batch lists, MPS-only modules, missing GPU profiles and joins, none of the four classes the audit
// counts reproduces (docs/reproduction/cost.md "The audit").
#include <algorithm>
#include <functional>
#include <gtest/gtest.h>
#include <random>

#include "engine/cost/brute_force.h"
#include "engine/cost/cost_planner.h"
#include "engine/cost/quantized_split.h"
#include "engine/cost/random_workload.h"
#include "tests/support/cost_audit.h"
#include "tests/support/cost_plan_checker.h"
#include "tests/support/durations.h"

namespace servescope::engine {
namespace {

using ::servescope::test::ms;

CostProblem two_chain() {
  CostProblem p;
  p.name = "two";
  p.modules.resize(2);
  p.edges = {{0, 1}};
  return p;
}

// m0 can be fast and dear or slow and cheap; m1 too, but its slow option saves far more. The
// greedy, started on m0's cheap option, cannot move m1 without first making m0 dearer.
TEST(CostRefinement, ExchangeTradesLatencyBetweenTwoModules) {
  const auto p = two_chain();
  const CostDag dag(p);
  SplitInput in;
  in.dag = &dag;
  in.slo = ms(40);
  in.options = {{{ms(10), 5, 0}, {ms(20), 1, 0}}, {{ms(10), 10, 0}, {ms(30), 1, 0}}};
  in.start = {0, 0};
  std::vector<std::size_t> choice{1, 0};  // 11 at 30 ms: no single move fits and saves
  const auto moves = exchange_pairs(in, choice);
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(choice, (std::vector<std::size_t>{0, 1}));  // 6 at 40 ms
  EXPECT_DOUBLE_EQ(moves[0].saving, 5);
  EXPECT_EQ(moves[0].spent, ms(10));
  EXPECT_EQ(critical_path(in, choice), ms(40));
  // Already the best pair: nothing to do.
  EXPECT_TRUE(exchange_pairs(in, choice).empty());
}

// Alg. 1 takes a machine of the best-ranked configuration (b2) and strands a residual that no
// configuration collects in time, so the fallback pads to two b2 machines (3.0); b1 alone, one
// machine and a third, costs 2.03 (seed 348 of the reproduction's workloads, +24.8 % before).
TEST(CostRefinement, AConfigurationAloneBeatsThePaddedFallback) {
  CostModule m;
  m.id = m.model = "m0";
  m.rate_rps = 94.5;
  m.configs = {make_cost_config("V100", 1, 1, ms(14.3), 1.5), make_cost_config("V100", 2, 1, ms(27.4), 1.5)};
  sort_configs(m.configs, m.rate_rps);
  ASSERT_EQ(m.configs[0].batch, 2);  // the better throughput per price
  const auto ours = cost_plan_preset("harpagon").module;
  const auto paper = as_published(cost_plan_preset("harpagon")).module;
  const auto padded = schedule_module(m, m.rate_rps, ms(56), paper);
  ASSERT_TRUE(padded.feasible);
  EXPECT_NEAR(padded.cost, 3.0, 1e-9);
  const auto alone = schedule_module(m, m.rate_rps, ms(56), ours);
  ASSERT_TRUE(alone.feasible);
  EXPECT_NEAR(alone.cost, 1.5 * 94.5 / (1 / 0.0143), 1e-9);
  ASSERT_EQ(alone.tiers.size(), 2u);
  EXPECT_EQ(alone.tiers[0].config, 1u);
  EXPECT_EQ(alone.tiers[1].config, 1u);
  EXPECT_LE(alone.wcl, ms(56));  // the planner's formula, not a measured time
}

// The quantized split keeps only each module's breakpoints; on small tables its optimum is the
// exhaustive search's over every budget vector, on chains, forks, diamonds and joins.
TEST(CostRefinement, QuantizedSplitEqualsExhaustiveSearch) {
  const std::vector<std::vector<std::pair<std::size_t, std::size_t>>> shapes = {
      {{0, 1}, {1, 2}}, {{0, 1}, {0, 2}}, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}, {{0, 3}, {1, 3}, {2, 3}}};
  std::mt19937_64 rng(7);
  int cases = 0;
  for (const auto& edges : shapes)
    for (int round = 0; round < 25; ++round) {
      CostProblem p;
      p.modules.resize(edges.size() == 2 ? 3 : 4);
      p.edges = edges;
      const CostDag dag(p);
      const std::size_t n = p.modules.size();
      const std::size_t S = 6 + rng() % 5;
      // Random costs, infinite below a random first budget, not necessarily monotone.
      std::vector<std::vector<double>> table(n, std::vector<double>(S + 1));
      for (auto& row : table) {
        const std::size_t first = 1 + rng() % 3;
        for (std::size_t j = 1; j <= S; ++j)
          row[j] = j < first ? kInfiniteCost : static_cast<double>(1 + rng() % 20);
      }
      const auto cost = [&](std::size_t m, Duration b) { return table[m][static_cast<std::size_t>(b.count_ns())]; };
      const auto split =
          quantized_split(dag, Duration::nanoseconds(static_cast<std::int64_t>(S)), Duration::nanoseconds(1), cost);
      double exhaustive = kInfiniteCost;
      std::vector<std::size_t> b(n, 1);
      const auto visit = [&](auto&& self, std::size_t m) -> void {
        if (m == n) {
          std::vector<Duration> w(n);
          double total = 0;
          for (std::size_t k = 0; k < n; ++k) {
            w[k] = Duration::nanoseconds(static_cast<std::int64_t>(b[k]));
            total += table[k][b[k]];
          }
          if (dag.longest_path(w) <= Duration::nanoseconds(static_cast<std::int64_t>(S)))
            exhaustive = std::min(exhaustive, total);
          return;
        }
        for (b[m] = 1; b[m] <= S; ++b[m])
          self(self, m + 1);
      };
      visit(visit, 0);
      ++cases;
      if (exhaustive == kInfiniteCost) {
        EXPECT_TRUE(split.budgets.empty());
        continue;
      }
      ASSERT_EQ(split.budgets.size(), n);
      double total = 0;
      for (std::size_t m = 0; m < n; ++m)
        total += cost(m, split.budgets[m]);
      EXPECT_DOUBLE_EQ(total, exhaustive) << "shape " << edges.size() << " round " << round;
      // Budgets are whole quanta (1 ns each here, abstract units, no clock): the split fits.
      EXPECT_LE(dag.longest_path(split.budgets).count_ns(), static_cast<std::int64_t>(S));
    }
  EXPECT_EQ(cases, 100);
}

TEST(CostRefinement, QuantizedSplitRefusesMoreQuantaThanItPlans) {
  const auto p = two_chain();
  const CostDag dag(p);
  const auto split = quantized_split(dag, Duration::seconds(60), ms(10), [](std::size_t, Duration) { return 1.0; });
  EXPECT_TRUE(split.budgets.empty());
  EXPECT_NE(split.refusal.find("6000 quanta of 10 ms"), std::string::npos) << split.refusal;
}

// Nexus ran 308 s, the -q0.01 presets over 30 s, on a 4-module diamond with a 13 s SLO. They plan
// it now (ctest's timeout is the only clock here), and the plans hold.
TEST(CostRefinement, QuantizedPresetsPlanALongSloDiamond) {
  std::uint64_t seed = 1;
  CostProblem p;
  for (;; ++seed) {
    p = random_cost_problem(seed);
    if (p.edges.size() == 4) break;  // the generator's fork-join
  }
  p.slo = Duration::seconds(13);
  for (const char* preset : {"nexus", "piccolo-q0.01", "harpagon-q0.01", "piccolo-q0.1"}) {
    const auto plan = plan_cost(p, cost_plan_preset(preset));
    ASSERT_TRUE(plan.feasible) << preset << " seed " << seed << ": " << plan.reason;
    EXPECT_TRUE(test::check_cost_plan(p, plan).empty()) << preset;
  }
}

// A plan sized with burst headroom printed the formula's latency at the rates it was sized for. At
// the workload's own rate the lower tiers collect more slowly; the plan now says both. Without
// headroom the two agree.
TEST(CostRefinement, WorstCaseAtTheWorkloadsRate) {
  CostModule m;
  m.id = m.model = "m";
  m.rate_rps = 100;
  m.configs = {make_cost_config("V100", 4, 1, ms(40), 1)};  // 100 req/s per machine
  ModulePlan two;
  two.tiers = {Tier::whole(0, 2)};
  evaluate(two, m, Dispatch::ThroughputCost);
  EXPECT_EQ(two.wcl, ms(60));  // sized for 200 req/s: a batch of 4 collects in 20 ms
  EXPECT_EQ(wcl_at_rate(two, m, 100, Dispatch::ThroughputCost), ms(80));  // 40 ms to collect at 100
  EXPECT_EQ(wcl_at_rate(two, m, 100, Dispatch::DirectThroughput), ms(80));
  EXPECT_EQ(wcl_at_rate(two, m, 100, Dispatch::RoundRobin), ms(120));  // each machine sees 50
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const auto p = random_cost_problem(seed);
    for (const char* preset : {"piccolo", "harpagon", "scrooge", "inferline"}) {
      const auto plan = plan_cost(p, cost_plan_preset(preset));
      if (!plan.feasible) continue;
      EXPECT_FALSE(plan.has_headroom());
      EXPECT_EQ(plan.latency_at_rates(), plan.latency) << preset << " seed " << seed;
      EXPECT_EQ(plan.e2e_wcl_at_rates(), plan.e2e_wcl) << preset << " seed " << seed;
    }
  }
}

// The audit's zeros and bound (docs/reproduction/cost.md "The audit") on a slice of it
// (bench/audit_cost runs 600 seeds for the report): no dropped module, no plan the checker rejects,
// none cheaper than the brute force, no refusal by Piccolo or Harpagon where their space has a
// plan, and their worst split within +25 %.
TEST(CostAudit, NoneOfTheIssueClassesReproduces) {
  const auto audit = test::audit_cost_planners(1, 40);
  EXPECT_EQ(audit.workloads, 80);
  EXPECT_GT(audit.plans, 2000);
  EXPECT_EQ(audit.dropped, 0);
  EXPECT_EQ(audit.rejected, 0);
  EXPECT_EQ(audit.below_optimum, 0);
  EXPECT_EQ(audit.wrongly_refused(), 0);
  for (const char* planner : {"piccolo", "harpagon"}) {
    const auto& s = audit.presets.at(planner);
    EXPECT_GT(s.compared, 20) << planner;
    EXPECT_LE(s.excess_max, 0.25) << planner << " seed " << s.excess_seed;
  }
}

}  // namespace
}  // namespace servescope::engine
