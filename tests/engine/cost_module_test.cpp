// Module-level worked examples of the Piccolo and Harpagon digests (§6 and §5): Alg. 1, the one-
// and two-configuration schedulers, the dummy generator, the fallback, the dispatch rules'
// worst-case latencies and the exact module frontier.
#include <gtest/gtest.h>

#include "engine/cost/brute_force.h"
#include "engine/cost/module_scheduler.h"
#include "tests/support/cost_fixture.h"
#include "tests/support/durations.h"

namespace servescope::engine {
namespace {

using test::cost_module;

constexpr auto TC = Dispatch::ThroughputCost;
constexpr auto RR = Dispatch::RoundRobin;

using ::servescope::test::s;

// "b100×2 | b20×1 | b5×0.1" without the hardware prefix.
std::string tiers(const ModulePlan& plan, const CostModule& m) {
  std::string out;
  for (const auto& t : plan.tiers) {
    if (!out.empty()) out += " ";
    char buf[32];
    std::snprintf(buf, sizeof buf, t.partial ? "b%d×%.4g" : "b%d×%.0f", m.configs[t.config].batch, t.machines);
    out += buf;
  }
  return out;
}

TEST(CostModule, T1_GenerateConfigCascadesToAPartialMachine) {
  const auto m = cost_module("M1", 285, test::piccolo_m1());
  const auto plan = generate_config(m, 285, s(2.0), TC);
  ASSERT_TRUE(plan.feasible);
  EXPECT_EQ(tiers(plan, m), "b100×2 b20×1 b5×0.1");
  EXPECT_NEAR(plan.cost, 3.1, 1e-9);
  EXPECT_NEAR(plan.wcl.to_s(), 1.0 + 100.0 / 285, 1e-9);
  EXPECT_NEAR(plan.tiers[1].wcl.to_s(), 0.25 + 20.0 / 85, 1e-9);
  EXPECT_NEAR(plan.tiers[2].wcl.to_s(), 1.1, 1e-9);  // the partial sees only its own 5 req/s
  // Theorem 2: what is left after each tier is less than one of its machines.
  EXPECT_LT(85.0, 100.0);
  EXPECT_LT(plan.tiers[2].rate_rps, m.configs[plan.tiers[1].config].throughput_rps);
}

TEST(CostModule, T2_OneBigMachineCannotTakeTheResidual) {
  const auto m = cost_module("M1", 85, test::piccolo_m1());
  EXPECT_NEAR(fluid_latency(m.configs[0], 85, TC).to_s(), 1.0 + 100.0 / 85, 1e-9);
  EXPECT_GT(fluid_latency(m.configs[0], 85, TC), s(2.0));
}

TEST(CostModule, T3_TwoAndOneConfigurationBaselines) {
  const auto m = cost_module("M1", 285, test::piccolo_m1());
  for (const auto rule : {RR, TC}) {
    // The "existing solution" of the paper's motivation: majority plus one residual configuration.
    const auto recipe = majority_and_residual(m, 285, s(2.0), rule);
    ASSERT_TRUE(recipe.feasible);
    EXPECT_NEAR(recipe.cost, 3.7, 1e-9) << to_string(rule);  // 2 + 1 + 35/50
    EXPECT_EQ(tiers(recipe, m), "b100×2 b5×1 b5×0.7");
    const auto one = one_tuple(m, 285, s(2.0), rule);
    ASSERT_TRUE(one.feasible);
    EXPECT_NEAR(one.cost, 3.5625, 1e-9) << to_string(rule);  // b20: 3 + 45/80
    // At most two configurations is never worse than one.
    EXPECT_NEAR(two_tuple(m, 285, s(2.0), rule).cost, 3.5625, 1e-9);
  }
}

TEST(CostModule, T4_DummyRequestsRoundTheTailUpToAWholeMachine) {
  const auto m = cost_module("M1", 285, test::piccolo_m1());
  for (const auto mode : {DummyMode::Piccolo, DummyMode::Harpagon, DummyMode::Both}) {
    ModuleSchedulerOptions o;
    o.dummy = mode;
    const auto plan = schedule_module(m, 285, s(2.0), o);
    ASSERT_TRUE(plan.feasible);
    EXPECT_EQ(tiers(plan, m), "b100×3") << to_string(mode);
    EXPECT_NEAR(plan.cost, 3.0, 1e-9);
    EXPECT_NEAR(plan.dummy_rps, 15, 1e-9);
    EXPECT_NEAR(plan.wcl.to_s(), 1.0 + 100.0 / 300, 1e-9);
  }
}

TEST(CostModule, T5_NaivePaddingDoesNotHelp) {
  const auto m = cost_module("M1", 285, test::piccolo_m1());
  EXPECT_NEAR(generate_config(m, 295, s(2.0), TC).cost, 3.1875, 1e-9);
  EXPECT_NEAR(generate_config(m, 305, s(2.0), TC).cost, 3.1, 1e-9);
  // Harpagon T3: M3 at 208 req/s.
  const auto h3 = cost_module("M3", 208, test::harpagon_m3());
  const auto plan = generate_config(h3, 208, s(1.0), TC);
  EXPECT_EQ(tiers(plan, h3), "b32×5 b2×0.4");
  EXPECT_NEAR(plan.cost, 5.4, 1e-9);
}

TEST(CostModule, T8_HarpagonTableTwoFourMethods) {
  const auto m = cost_module("M3", 198, test::harpagon_m3());
  const auto s1 = two_tuple(m, 198, s(1.0), RR);
  EXPECT_EQ(tiers(s1, m), "b8×6 b2×0.3");
  EXPECT_NEAR(s1.cost, 6.3, 1e-9);
  const auto s2 = two_tuple(m, 198, s(1.0), TC);
  EXPECT_EQ(tiers(s2, m), "b32×4 b2×1 b2×0.9");
  EXPECT_NEAR(s2.cost, 5.9, 1e-9);
  const auto s3 = generate_config(m, 198, s(1.0), TC);
  EXPECT_EQ(tiers(s3, m), "b32×4 b8×1 b2×0.3");
  EXPECT_NEAR(s3.cost, 5.3, 1e-9);
  EXPECT_NEAR(s3.tiers[0].wcl.to_s(), 0.96162, 1e-5);
  EXPECT_NEAR(s3.tiers[1].wcl.to_s(), 0.46053, 1e-5);
  EXPECT_NEAR(s3.tiers[2].wcl.to_s(), 0.43333, 1e-5);
  ModuleSchedulerOptions harpagon;
  const auto s4 = schedule_module(m, 198, s(1.0), harpagon);
  EXPECT_EQ(tiers(s4, m), "b32×5");
  EXPECT_NEAR(s4.cost, 5.0, 1e-9);
  EXPECT_NEAR(s4.dummy_rps, 2, 1e-9);
  EXPECT_NEAR(s4.wcl.to_s(), 0.96, 1e-9);
  // Piccolo's formula asks for 122 dummy req/s at b32 (cost 8.0): never taken.
  ModuleSchedulerOptions piccolo;
  piccolo.dummy = DummyMode::Piccolo;
  EXPECT_NEAR(schedule_module(m, 198, s(1.0), piccolo).cost, 5.3, 1e-9);
  EXPECT_NEAR(one_tuple(m, 198, s(1.0), TC).cost, 9.9, 1e-9);
  BruteForceStats stats;
  const auto front = module_frontier(m, s(1.0), stats);
  ASSERT_FALSE(front.empty());
  EXPECT_NEAR(front.back().cost, 5.0, 1e-9);
  EXPECT_TRUE(stats.complete);
}

TEST(CostModule, T9_TinyResidualFailsAlg1AndTheFallbackPads) {
  const auto m = cost_module("M3", 200.5, test::harpagon_m3());
  const auto alg1 = generate_config(m, 200.5, s(1.0), TC);
  EXPECT_FALSE(alg1.feasible);  // b32×5, then 0.5 req/s that nothing collects in time
  EXPECT_EQ(tiers(alg1, m), "b32×5");
  const auto plan = schedule_module(m, 200.5, s(1.0), ModuleSchedulerOptions{});
  ASSERT_TRUE(plan.feasible);
  EXPECT_TRUE(plan.fallback);
  EXPECT_EQ(tiers(plan, m), "b32×6");
  EXPECT_NEAR(plan.cost, 6.0, 1e-9);
  EXPECT_NEAR(plan.dummy_rps, 39.5, 1e-9);
  ModuleSchedulerOptions literal;
  literal.fallback = false;
  EXPECT_FALSE(schedule_module(m, 200.5, s(1.0), literal).feasible);
  // The exact frontier breaks Theorem 2 to do better: b32×4 + b8×1 + b2 partial.
  BruteForceStats stats;
  const auto front = module_frontier(m, s(1.0), stats);
  EXPECT_NEAR(front.back().cost, 5.425, 1e-9);
  EXPECT_LE(front.back().cost, plan.cost);
}

TEST(CostModule, T10_TheoremOneAndRoundRobinOnFigureThree) {
  CostModule m;
  m.id = "M4";
  m.rate_rps = 8;
  m.configs = {make_cost_config("hw", 6, 1, s(2.0), 1), make_cost_config("hw", 2, 1, s(1.0), 1)};
  sort_configs(m.configs, 8);
  ModulePlan plan;
  plan.tiers = {Tier::whole(0, 2), Tier::whole(1, 1)};
  evaluate(plan, m, TC);
  EXPECT_NEAR(plan.tiers[0].collect_rps, 8, 1e-12);
  EXPECT_NEAR(plan.tiers[1].collect_rps, 2, 1e-12);
  EXPECT_NEAR(plan.wcl.to_s(), 2.75, 1e-9);
  EXPECT_NEAR(plan.tiers[1].wcl.to_s(), 2.0, 1e-9);
  evaluate(plan, m, RR);
  EXPECT_NEAR(plan.tiers[0].wcl.to_s(), 4.0, 1e-9);  // 2d
  // T12: two b100 machines at full load and nothing below: 1.5d, against 2d under RR.
  const auto m1 = cost_module("M1", 200, test::piccolo_m1());
  ModulePlan two;
  two.tiers = {Tier::whole(0, 2)};
  evaluate(two, m1, TC);
  EXPECT_NEAR(two.wcl.to_s(), 1.5, 1e-9);
  evaluate(two, m1, RR);
  EXPECT_NEAR(two.wcl.to_s(), 2.0, 1e-9);
}

TEST(CostModule, T12_ScroogeCollectsAtItsTiersOwnRate) {
  const auto m = cost_module("M3", 198, test::harpagon_m3());
  auto plan = two_tuple(m, 198, s(1.0), TC);
  evaluate(plan, m, Dispatch::DirectThroughput);
  EXPECT_NEAR(plan.tiers[0].wcl.to_s(), 1.0, 1e-9);             // 0.8 + 32/160
  EXPECT_NEAR(plan.tiers[1].wcl.to_s(), 0.1 + 2.0 / 20, 1e-9);  // the full b2 machine alone
  // TC ≤ DT ≤ RR on the same tiers.
  auto tc = plan, rr = plan;
  evaluate(tc, m, TC);
  evaluate(rr, m, RR);
  EXPECT_LE(tc.wcl, plan.wcl);
  EXPECT_LE(plan.wcl, rr.wcl);
}

TEST(CostModule, T13_RoundRobinNeedsMoreMachinesThanThroughputCost) {
  const auto m = cost_module("M1", 100, test::harpagon_m1());
  const auto rr = generate_config(m, 100, s(0.4), RR);
  EXPECT_EQ(tiers(rr, m), "b4×5");
  EXPECT_NEAR(rr.cost, 5.0, 1e-9);
  const auto tc = generate_config(m, 100, s(0.4), TC);
  EXPECT_EQ(tiers(tc, m), "b8×4");
  EXPECT_NEAR(tc.cost, 4.0, 1e-9);
  EXPECT_NEAR(tc.wcl.to_s(), 0.40, 1e-9);  // exactly at the limit
}

TEST(CostModule, HarpagonT8_HeterogeneousTiers) {
  std::vector<test::BD> rows;
  for (const auto& r : test::harpagon_m1()) {
    rows.push_back({r.batch, r.duration_s, 1.0, "P"});
    rows.push_back({r.batch, r.duration_s * 0.5, 1.5, "V"});
  }
  const auto m100 = cost_module("M1", 100, rows);
  const auto a = schedule_module(m100, 100, s(0.4), ModuleSchedulerOptions{});
  EXPECT_EQ(describe(a, m100), "V b8×2");
  EXPECT_NEAR(a.cost, 3.0, 1e-9);
  const auto m120 = cost_module("M1", 120, rows);
  const auto b = schedule_module(m120, 120, s(0.4), ModuleSchedulerOptions{});
  EXPECT_EQ(describe(b, m120), "V b8×2 | V b4×0.5");
  EXPECT_NEAR(b.cost, 3.75, 1e-9);
  EXPECT_NEAR(b.tiers[0].wcl.to_s(), 0.16 + 8.0 / 120, 1e-9);
  EXPECT_NEAR(b.tiers[1].wcl.to_s(), 0.30, 1e-9);
}

TEST(CostModule, HarpagonT13_ExactFrontierOfOneModule) {
  const auto m = cost_module("M2", 100, test::harpagon_m2());
  BruteForceStats stats;
  const auto front = module_frontier(m, s(3.0), stats);
  ASSERT_TRUE(stats.complete);
  const std::vector<std::pair<double, double>> expected = {{0.1429, 7.0}, {0.1951, 6.0},  {0.1974, 5.0},
                                                           {0.2, 4.0},    {0.33, 3.6875}, {0.5236, 3.44},
                                                           {0.625, 3.25}, {1.16, 3.16},   {2.25, 3.125}};
  ASSERT_EQ(front.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    EXPECT_NEAR(front[k].latency.to_s(), expected[k].first, 1e-4) << k;
    EXPECT_NEAR(front[k].cost, expected[k].second, 1e-9) << k;
  }
  // Alg. 1 fails at 0.33 and the fallback pays 4.0 where the exact plan costs 3.6875.
  EXPECT_FALSE(generate_config(m, 100, s(0.33), TC).feasible);
  EXPECT_NEAR(schedule_module(m, 100, s(0.33), ModuleSchedulerOptions{}).cost, 4.0, 1e-9);
  // T15 (Piccolo): with padding, M1 at 285 req/s under 2.0 s costs 3.0 at best.
  const auto m1 = cost_module("M1", 285, test::piccolo_m1());
  EXPECT_NEAR(module_frontier(m1, s(2.0), stats).back().cost, 3.0, 1e-9);
}

TEST(CostModule, LatencyCostValues) {
  // Piccolo T6: M1 at 100 req/s from b5.
  const auto m = cost_module("M1", 100, test::piccolo_m1());
  const auto lc = [&](const CostModule& mod, std::size_t from, std::size_t to, double rate) {
    const auto& a = mod.configs[from];
    const auto& b = mod.configs[to];
    return (fluid_cost(a, rate) - fluid_cost(b, rate)) /
           (fluid_latency(b, rate, TC) - fluid_latency(a, rate, TC)).to_s();
  };
  // Sorted by ratio: b100 (0), b20 (1), b5 (2).
  EXPECT_NEAR(lc(m, 2, 1, 100), 2.50, 1e-9);
  EXPECT_NEAR(lc(m, 2, 0, 100), 0.5405, 1e-4);
  // Harpagon T5: M1 from b2: b4 50.0, b8 18.18.
  const auto h = cost_module("H1", 100, test::harpagon_m1());
  EXPECT_NEAR(lc(h, 2, 1, 100), 50.0, 1e-9);
  EXPECT_NEAR(lc(h, 2, 0, 100), 18.1818, 1e-4);
  // The sign trap: b20 back to b5 also has a positive ratio, but raises the cost.
  EXPECT_NEAR(lc(m, 1, 2, 100), 2.50, 1e-9);
  EXPECT_LT(fluid_cost(m.configs[1], 100) - fluid_cost(m.configs[2], 100), 0);
}

}  // namespace
}  // namespace servescope::engine
