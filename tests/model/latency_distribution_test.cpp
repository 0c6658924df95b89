// Profiles as distributions (issue 46): the quantiles kept per entry and read back in between
// levels; the median's distribution-free interval the profiler stops on; the monotone fit that
// pools a slow batch with its neighbours instead of carrying it forward; the stopping rule on
// given samples (no clock); and the file format, old profiles included.
#include "model/profile/latency_distribution.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

#include "model/core/error.h"
#include "model/io/document.h"
#include "model/io/model_json.h"
#include "model/profile/isotonic_fit.h"
#include "model/profile/stable_timing.h"
#include "model/scenario/latency_quantile.h"

namespace servescope {
namespace {

std::vector<Duration> us(std::initializer_list<std::int64_t> values) {
  std::vector<Duration> out;
  for (const auto v : values)
    out.push_back(Duration::microseconds(v));
  return out;
}

TEST(LatencyDistribution, KeepsNearestRankQuantilesAndInterpolatesBetweenThem) {
  std::vector<Duration> runs;
  for (int i = 1000; i >= 1; --i)  // 1..1000 µs, in any order
    runs.push_back(Duration::microseconds(i));
  const auto d = LatencyDistribution::of(runs);
  EXPECT_EQ(d.runs, 1000);
  ASSERT_EQ(d.quantiles.size(), kDistributionLevels.size());
  EXPECT_EQ(d.quantiles[0], Duration::microseconds(50));     // p5
  EXPECT_EQ(d.median(), Duration::microseconds(500));        // p50
  EXPECT_EQ(d.quantile(0.99), Duration::microseconds(990));  // p99
  EXPECT_EQ(d.quantiles.back(), Duration::microseconds(999));
  // Between p50 (500) and p75 (750): linear.
  EXPECT_EQ(d.quantile(0.625), Duration::microseconds(625));
  // Beyond the end levels the end values hold: nothing is extrapolated.
  EXPECT_EQ(d.quantile(0.0), Duration::microseconds(50));
  EXPECT_EQ(d.quantile(1.0), Duration::microseconds(999));
  EXPECT_THROW((void)LatencyDistribution::of({}), std::invalid_argument);
}

TEST(LatencyDistribution, TheMediansIntervalNarrowsWithRunsAndNeedsEightOfThem) {
  EXPECT_TRUE(std::isinf(median_half_width(us({10, 11, 12, 13, 14, 15, 16}))));
  // 8 runs: the 1st and the 8th bound the median (rank 4.5 ± 2.77).
  EXPECT_DOUBLE_EQ(median_half_width(us({90, 95, 98, 100, 100, 102, 105, 110})), (110.0 - 90.0) / 2 / 100);
  // Runs spread uniformly ±10 %: the interval shrinks as 1/√n.
  const auto spread = [](int n) {
    std::vector<Duration> s;
    for (int i = 0; i < n; ++i)
      s.push_back(Duration::nanoseconds(900'000 + 200'000 * i / (n - 1)));
    return median_half_width(s);
  };
  EXPECT_GT(spread(25), spread(100));
  EXPECT_NEAR(spread(100) / spread(400), 2.0, 0.2);
}

TEST(IsotonicFit, PoolsASlowBatchWithItsNeighboursInsteadOfCarryingItForward) {
  // Batch 2 measured slow once: a running maximum would lift batches 3 and 4 to 50.
  EXPECT_EQ(isotonic_fit(us({10, 50, 30, 40})), us({10, 40, 40, 40}));
  EXPECT_EQ(isotonic_fit(us({10, 50, 20, 60})), us({10, 35, 35, 60}));
  EXPECT_EQ(isotonic_fit(us({10, 20, 30})), us({10, 20, 30})) << "a monotone curve stays as it is";
  // Weighted by runs: the value measured more often moves less.
  EXPECT_EQ(isotonic_fit(us({40, 10}), {3, 1}),
            (std::vector<Duration>{Duration::nanoseconds(32'500), Duration::nanoseconds(32'500)}));  // (3·40 + 10) / 4
  EXPECT_TRUE(isotonic_fit({}).empty());
}

TEST(StableTiming, StopsOnceTheMedianIsKnownAndSaysWhenItIsNot) {
  // Runs alternating 99 and 101 µs: known to ±2 % as soon as the interval can be formed.
  int calls = 0;
  const auto steady = [&] { return Duration::microseconds(++calls % 2 ? 99 : 101); };
  RepeatPolicy policy;
  policy.warmup = 2;
  const auto t = time_until_stable(policy, steady);
  EXPECT_TRUE(t.stable);
  EXPECT_EQ(static_cast<int>(t.runs.size()), policy.min_runs);
  EXPECT_EQ(calls, policy.min_runs + 2) << "the warm-up runs are run, not kept";
  // Runs spread 50-150 µs: never within 2 % before max_runs.
  int k = 0;
  const auto noisy = [&] { return Duration::microseconds(50 + (k++ * 37) % 101); };
  policy.max_runs = 60;
  const auto wide = time_until_stable(policy, noisy);
  EXPECT_FALSE(wide.stable);
  EXPECT_EQ(wide.runs.size(), 60u);
  EXPECT_GT(wide.half_width, 0.02);
  // The caller's budget ends it after the least number of runs.
  k = 0;
  const auto spent = time_until_stable(policy, noisy, [] { return true; });
  EXPECT_EQ(static_cast<int>(spent.runs.size()), policy.min_runs);
  // A fixed count is exactly that many runs.
  calls = 0;
  EXPECT_EQ(time_until_stable(RepeatPolicy::fixed(3, 1), steady).runs.size(), 3u);
  EXPECT_EQ(calls, 4);
}

ModelProfile measured_profile() {
  ModelProfile p;
  p.name = "m";
  p.form = ProfileForm::Blocks;
  p.block_count = 2;
  p.boundary_bytes = {1024};
  BlockTable t;
  t.gpu = "cpu-test-2t";
  std::vector<std::vector<LatencyDistribution>> rows(2);
  for (int block = 0; block < 2; ++block)
    for (int batch = 1; batch <= 2; ++batch) {
      std::vector<Duration> runs;
      for (int i = 0; i < 40; ++i)
        runs.push_back(Duration::microseconds(100 * batch * (block + 1) + i));
      rows[static_cast<std::size_t>(block)].push_back(LatencyDistribution::of(runs));
    }
  for (const auto& row : rows) {
    t.blocks.emplace_back(std::vector<int>{1, 2}, std::vector<Duration>{row[0].median(), row[1].median()});
    t.p99.emplace_back(std::vector<int>{1, 2}, std::vector<Duration>{row[0].quantile(0.99), row[1].quantile(0.99)});
  }
  t.distributions = rows;
  p.block_tables.push_back(t);
  return p;
}

std::string profiles_text(const ModelProfile& p) {
  ProfileSet set;
  set.name = "s";
  set.models.push_back(p);
  return to_json(set).dump();
}

ProfileSet parse_profiles(const std::string& text, const std::string& location) {
  return std::get<ProfileSet>(parse_document(text, location).content);
}

TEST(LatencyDistribution, AProfileAnswersEveryLevelSummedOverBlocksAndBetweenBatches) {
  auto p = measured_profile();
  // Block k at batch b was measured 100·b·(k+1) .. +39 µs: each level is the sum of the blocks'.
  const auto both = p.latency_levels({"cpu-test-2t", GpuShare::whole(), 1, std::nullopt});
  ASSERT_TRUE(both.has_value());
  const auto& t = p.block_tables.front();
  for (std::size_t level = 0; level < kDistributionLevels.size(); ++level)
    EXPECT_EQ((*both)[level], t.distributions[0][0].quantiles[level] + t.distributions[1][0].quantiles[level]);
  const auto second = p.latency_levels({"cpu-test-2t", GpuShare::whole(), 2, BlockRange{1, 2}});
  EXPECT_EQ(second->at(3), t.distributions[1][1].median());
  // Measured at batches 1 and 3: batch 2 lies halfway, level by level.
  auto& table = p.block_tables.front();
  for (auto& curve : table.blocks)
    curve = BatchCurve({1, 3}, curve.latency());
  for (auto& curve : table.p99)
    curve = BatchCurve({1, 3}, curve.latency());
  const auto mid = p.latency_levels({"cpu-test-2t", GpuShare::whole(), 2, BlockRange{0, 1}});
  const auto& row = table.distributions[0];
  for (std::size_t level = 0; level < kDistributionLevels.size(); ++level)
    EXPECT_EQ((*mid)[level],
              Duration::nanoseconds((row[0].quantiles[level].count_ns() + row[1].quantiles[level].count_ns()) / 2));
  // Without distributions there is nothing to draw from; a query it cannot answer throws.
  table.distributions.clear();
  EXPECT_FALSE(p.latency_levels({"cpu-test-2t", GpuShare::whole(), 1, std::nullopt}).has_value());
  EXPECT_THROW((void)p.latency_levels({"V100", GpuShare::whole(), 1, std::nullopt}), QueryError);
}

TEST(LatencyDistribution, PlanningAtAQuantileReplacesTheTablesAndKeepsTheDistributions) {
  EXPECT_EQ(quantile_name(0.99), "p99");
  EXPECT_EQ(quantile_name(0.999), "p99.9");
  EXPECT_EQ(quantile_name(0.5), "median");
  auto p = measured_profile();
  const auto kept = p.block_tables.front().distributions;
  ASSERT_TRUE(plan_at_quantile(p, 0.99));
  const auto& t = p.block_tables.front();
  EXPECT_EQ(t.distributions, kept);
  for (std::size_t k = 0; k < 2; ++k)
    for (std::size_t b = 0; b < 2; ++b)
      EXPECT_EQ(t.blocks[k].latency()[b], kept[k][b].quantile(0.99));
  EXPECT_EQ(p.latency({"cpu-test-2t", GpuShare::whole(), 1, std::nullopt}),
            kept[0][0].quantile(0.99) + kept[1][0].quantile(0.99));
  // A scenario without distributions is planned as it is, not copied.
  Scenario s;
  ModelProfile published = measured_profile();
  published.block_tables.front().distributions.clear();
  s.profiles.models.push_back(published);
  EXPECT_FALSE(planned_at_quantile(s, 0.99).has_value());
  s.profiles.models.push_back(measured_profile());
  s.profiles.models.back().name = "n";
  const auto planned = planned_at_quantile(s, 0.99);
  ASSERT_TRUE(planned.has_value());
  EXPECT_EQ(planned->profiles.models.front(), published);
  EXPECT_NE(planned->profiles.models.back(), s.profiles.models.back());
}

TEST(LatencyDistribution, ARoundTripThroughTheFileKeepsEveryQuantileAndRun) {
  const auto p = measured_profile();
  const auto text = profiles_text(p);
  EXPECT_NE(text.find("\"distribution_us\""), std::string::npos);
  const auto back = parse_profiles(text, "mem.json");
  ASSERT_EQ(back.models.size(), 1u);
  EXPECT_EQ(back.models.front(), p);
}

TEST(LatencyDistribution, OldProfilesLoadAndBadDistributionsAreNamed) {
  auto p = measured_profile();
  p.block_tables.front().distributions.clear();
  const auto old_style = parse_profiles(profiles_text(p), "old.json");
  EXPECT_TRUE(old_style.models.front().block_tables.front().distributions.empty());

  const auto good = profiles_text(measured_profile());
  const auto broken = [&](const std::string& from, const std::string& to) {
    auto text = good;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    try {
      (void)parse_profiles(text, "bad.json");
      return std::string("loaded");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_NE(broken("0.999", "0.9999").find("expected the levels"), std::string::npos);
  EXPECT_NE(broken("\"runs\":[[40,40]", "\"runs\":[[40]").find("one per batch size"), std::string::npos);
  EXPECT_NE(broken("\"runs\":[[40,40]", "\"runs\":[[0,40]").find("bad.json"), std::string::npos);
}

}  // namespace
}  // namespace servescope
