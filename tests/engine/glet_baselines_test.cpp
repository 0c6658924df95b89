// The baselines of gpu-let's evaluation (seed 003 §4.11) on the digest's worked examples (TC9,
// TC10, TC15), and every system's layouts on random model mixes re-checked by the independent
// checker (TC18).
#include "engine/glet/glet_baselines.h"

#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <set>

#include "engine/glet/synthetic_profile.h"
#include "model/core/error.h"
#include "tests/support/glet_fixture.h"
#include "tests/support/glet_layout_checker.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

const std::vector<int> kSizes = {20, 40, 50, 60, 80, 100};

// The digest's synthetic roofline-like profile (§4.1) with L(32, 100 %) = c0 + 32·w.
ModelProfile synthetic_profile(const std::string& name, double c0_ms, double w_ms) {
  SyntheticGletShape shape;
  shape.c0 = Duration::from_us(1000 * c0_ms);
  return synthetic_glet_profile(name, "RTX2080Ti", Duration::from_us(2000 * (c0_ms + 32 * w_ms)), kSizes, shape);
}

ModelProfile toy_a() {
  return test::affine_glet_profile("A", 2);
}

GletLatencyOptions toy_latency() {
  return test::toy_latency_options();
}

InterferenceModel rtx_2080_ti() {
  return {"RTX2080Ti", 0.11291, 0.71596, 0.35487, 0.08820, 0.89537, "", ""};
}

}  // namespace

TEST(GletTC9, SbpNeedsTwoWholeGpusWhereGletNeedsOne) {
  const auto a = toy_a();
  const std::vector<GletModel> models = {{&a, nullptr, 1500, Duration::milliseconds(100), {}}};
  const auto sbp = plan_glet_system("sbp", models, toy_latency(), test::exact_planner_options(), 1, 4);
  ASSERT_TRUE(sbp.feasible) << sbp.message;
  EXPECT_EQ(sbp.layout.gpus_used(), 2);
  EXPECT_EQ(sbp.layout.gpus[0].glets[0].mode, GletMode::Saturated);
  EXPECT_NEAR(sbp.layout.gpus[0].glets[0].models[0].rate_rps, 941.2, 0.05);
  const auto& residue = sbp.layout.gpus[1].glets[0];
  EXPECT_EQ(residue.mode, GletMode::Residue);
  EXPECT_EQ(residue.models[0].batch, 32);
  EXPECT_NEAR(residue.duty_cycle.to_ms(), 57.26, 0.01);
  EXPECT_NEAR(residue.occupancy(), 0.594, 0.001);
  auto whole = toy_latency();
  whole.sizes = {100};
  EXPECT_EQ(test::check_glet_layout(GletLatency(models, whole), sbp.layout, 1e-6), std::vector<std::string>{});
  EXPECT_EQ(
      plan_glet_system("glet-noint", models, toy_latency(), test::exact_planner_options(), 1, 4).layout.gpus_used(), 1);
}

TEST(GletTC10, GreedyBestFitCarvesAHundredAndAForty) {
  const auto a = toy_a();
  const std::vector<GletModel> models = {{&a, nullptr, 1500, Duration::milliseconds(100), {}}};
  const auto greedy = plan_glet_system("greedy-bestfit", models, toy_latency(), test::exact_planner_options(), 1, 4);
  ASSERT_TRUE(greedy.feasible) << greedy.message;
  EXPECT_EQ(greedy.layout.gpus_used(), 2);
  EXPECT_EQ(greedy.layout.total_size_percent(), 140);
  EXPECT_EQ(greedy.layout.gpus[0].glets[0].size_percent, 100);
  EXPECT_EQ(greedy.layout.gpus[1].glets[0].size_percent, 40);
  for (const auto& g : greedy.layout.gpus)
    for (const auto& l : g.glets)
      if (!l.free()) {
        EXPECT_EQ(l.mode, GletMode::Saturated);
      }
  EXPECT_EQ(test::check_glet_layout(GletLatency(models, toy_latency()), greedy.layout, 1e-6),
            std::vector<std::string>{});
}

TEST(GletTC15, FixedLayoutsOfFourGpus) {
  const auto splits = glet_splits(kSizes);
  EXPECT_EQ(splits, (std::vector<std::vector<int>>{{100}, {20, 80}, {40, 60}, {50, 50}}));
  std::set<std::vector<std::vector<int>>> seen;
  const auto visited = for_each_fixed_layout(4, splits, [&](const GletLayout& l) {
    std::vector<std::vector<int>> shape;
    for (const auto& g : l.gpus) {
      shape.emplace_back();
      for (const auto& glet : g.glets)
        shape.back().push_back(glet.size_percent);
    }
    seen.insert(shape);
    return false;
  });
  EXPECT_EQ(visited, 256);
  EXPECT_EQ(seen.size(), 256u);
  EXPECT_EQ(for_each_fixed_layout(4, splits, [](const GletLayout&) { return true; }), 1);
}

TEST(GletBaselines, EvenSplitSbpAndIdealOnToyA) {
  const auto a = toy_a();
  const UtilisationProfile quiet{"A", "RTX2080Ti", {{1, 0, 0.01, 0.01}, {32, 0, 0.05, 0.05}}, ""};
  const std::vector<GletModel> models = {{&a, &quiet, 1500, Duration::milliseconds(100), {}}};
  // Two 50 % halves: 761.9 saturated, then a 738.1 residue (b = 32, L = 42 ≤ d = 43.35).
  const auto even = plan_glet_system("sbp-even", models, toy_latency(), test::exact_planner_options(), 1, 4);
  ASSERT_TRUE(even.feasible) << even.message;
  EXPECT_EQ(even.layout.gpus_used(), 1);
  auto with_int = toy_latency();
  with_int.interference = rtx_2080_ti();
  const auto ideal = plan_glet_system("ideal", models, with_int, test::exact_planner_options(), 1, 4);
  ASSERT_TRUE(ideal.feasible) << ideal.message;
  EXPECT_EQ(ideal.gpus, 1);
  EXPECT_EQ(test::check_glet_layout(GletLatency(models, with_int), ideal.layout, 1e-6), std::vector<std::string>{});
  EXPECT_THROW(plan_glet_system("glet", models, toy_latency(), test::exact_planner_options(), 1, 4), QueryError);
  EXPECT_THROW(plan_glet_system("nexus", models, toy_latency(), test::exact_planner_options(), 1, 4), QueryError);
}

// TC18: random mixes of up to five synthetic models; every system's feasible layout holds.
TEST(GletTC18, EverySystemsLayoutsPassTheChecker) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> c0(1, 4), w(0.3, 2.5), rate(50, 900), l2(0.05, 0.4), dram(0.2, 0.7);
  int feasible = 0, checked = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const int n = 2 + trial % 4;
    std::vector<ModelProfile> profiles;
    std::vector<UtilisationProfile> util;
    for (int i = 0; i < n; ++i) {
      profiles.push_back(synthetic_profile("m" + std::to_string(i), c0(rng), w(rng)));
      util.push_back(
          {profiles.back().name, "RTX2080Ti", {{1, 0, l2(rng), dram(rng)}, {32, 0, l2(rng), dram(rng)}}, ""});
    }
    std::vector<GletModel> models;
    for (int i = 0; i < n; ++i) {
      // SLO = 2 × L(32, 100) (the paper's rule), so a batch of 32 saturates a whole GPU.
      const auto solo = profiles[static_cast<std::size_t>(i)].latency({"RTX2080Ti", GpuShare::whole(), 32, {}});
      models.push_back(
          {&profiles[static_cast<std::size_t>(i)], &util[static_cast<std::size_t>(i)], rate(rng), solo * 2, {}});
    }
    GletLatencyOptions lo;
    lo.gpu = "RTX2080Ti";
    lo.interference = rtx_2080_ti();
    GletPlannerOptions po;  // prototype defaults: safety 1.1, ε = 15 req/s
    auto weighted = lo;
    weighted.weight_by_occupancy = true;
    const auto occ = plan_glet_system("glet", models, weighted, po, 1, 4);
    if (occ.feasible) {
      ++feasible;
      ++checked;
      EXPECT_EQ(test::check_glet_layout(GletLatency(models, weighted), occ.layout, po.rate_epsilon_rps,
                                        std::max(po.rate_epsilon_fraction, po.shortfall_tolerance)),
                std::vector<std::string>{})
          << "glet, occupancy-weighted, trial " << trial;
    }
    for (const auto& system : glet_systems()) {
      if (system == "ideal" && n > 3) continue;  // 4^N layouts per N: kept small here
      const auto plan = plan_glet_system(system, models, lo, po, 1, 4);
      if (!plan.feasible) continue;
      ++feasible;
      auto check = lo;
      if (system != "glet" && system != "ideal") check.interference.reset();
      if (system == "sbp") check.sizes = {100};
      if (system == "sbp-even") check.sizes = {50};
      ++checked;
      EXPECT_EQ(test::check_glet_layout(GletLatency(models, check), plan.layout, po.rate_epsilon_rps,
                                        std::max(po.rate_epsilon_fraction, po.shortfall_tolerance)),
                std::vector<std::string>{})
          << system << " trial " << trial;
    }
  }
  EXPECT_GT(feasible, 60);  // most mixes fit in 4 GPUs: the checks above are not vacuous
  EXPECT_EQ(checked, feasible);
}
