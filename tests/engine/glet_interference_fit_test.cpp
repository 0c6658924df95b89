// Least-squares fit of gpu-let's interference model (seed 003 §4.4, digest §4.7, TC15's
// 2,500-sample design): known coefficients are recovered from synthetic co-runs.
#include <algorithm>
#include <gtest/gtest.h>
#include <random>

#include "engine/glet/interference_fit.h"
#include "model/core/error.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

// The paper's design: 10 model pairs × 5 × 5 batch sizes × 5 splits, one sample per side.
std::vector<InterferenceSample> paper_design(const InterferenceModel& truth, double noise, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> l2(0.05, 0.35), dram(0.2, 0.65);
  std::normal_distribution<double> eps(0, noise);
  std::vector<std::pair<double, double>> models;  // (L2, DRAM) at full share
  for (int m = 0; m < 5; ++m)
    models.emplace_back(l2(rng), dram(rng));
  const std::vector<double> batch_scale = {0.55, 0.7, 0.85, 0.95, 1.0};  // utilisation grows with batch
  const std::vector<std::pair<int, int>> splits = {{20, 80}, {40, 60}, {50, 50}, {60, 40}, {80, 20}};
  std::vector<InterferenceSample> out;
  for (int a = 0; a < 5; ++a)
    for (int b = a + 1; b < 5; ++b)
      for (const double ba : batch_scale)
        for (const double bb : batch_scale)
          for (const auto& [pa, pb] : splits) {
            const auto side = [&](int self, double bs, int ps, int other, double bo, int po) {
              InterferenceSample s;
              s.l2_self = models[static_cast<std::size_t>(self)].first * bs * ps / 100;
              s.dram_self = models[static_cast<std::size_t>(self)].second * bs * ps / 100;
              s.l2_other = models[static_cast<std::size_t>(other)].first * bo * po / 100;
              s.dram_other = models[static_cast<std::size_t>(other)].second * bo * po / 100;
              s.slowdown = truth.l2_self * s.l2_self + truth.l2_other * s.l2_other + truth.dram_self * s.dram_self +
                           truth.dram_other * s.dram_other + truth.constant + (noise > 0 ? eps(rng) : 0);
              return s;
            };
            out.push_back(side(a, ba, pa, b, bb, pb));
            out.push_back(side(b, bb, pb, a, ba, pa));
          }
  return out;
}

const InterferenceModel kRtx2080Ti{"rtx-2080-ti", 0.11291, 0.71596, 0.35487, 0.08820, 0.89537, "", ""};

}  // namespace

TEST(GletInterferenceFit, RecoversExactCoefficientsAndSplitsLikeThePaper) {
  const auto samples = paper_design(kRtx2080Ti, 0, 3);
  ASSERT_EQ(samples.size(), 2500u);
  const auto fit = fit_interference(samples, "rtx-2080-ti", 0.7, 1);
  EXPECT_EQ(fit.train, 1750u);
  EXPECT_EQ(fit.validation, 750u);
  EXPECT_NEAR(fit.model.l2_self, kRtx2080Ti.l2_self, 1e-6);
  EXPECT_NEAR(fit.model.l2_other, kRtx2080Ti.l2_other, 1e-6);
  EXPECT_NEAR(fit.model.dram_self, kRtx2080Ti.dram_self, 1e-6);
  EXPECT_NEAR(fit.model.dram_other, kRtx2080Ti.dram_other, 1e-6);
  EXPECT_NEAR(fit.model.constant, kRtx2080Ti.constant, 1e-6);
  EXPECT_LT(fit.error_quantile(1.0), 1e-6);
}

TEST(GletInterferenceFit, NoisyCoRunsGiveCloseCoefficientsAndAnHonestErrorCdf) {
  const auto fit = fit_interference(paper_design(kRtx2080Ti, 0.02, 5), "rtx-2080-ti", 0.7, 2);
  EXPECT_NEAR(fit.model.l2_other, kRtx2080Ti.l2_other, 0.1);
  EXPECT_NEAR(fit.model.constant, kRtx2080Ti.constant, 0.05);
  ASSERT_EQ(fit.validation_errors.size(), 750u);
  EXPECT_TRUE(std::ranges::is_sorted(fit.validation_errors));
  // Noise of 0.02 on slowdowns near 1.1: the median error is about 0.67·0.02/1.1 ≈ 1.2 %.
  EXPECT_GT(fit.error_quantile(0.5), 0.005);
  EXPECT_LT(fit.error_quantile(0.5), 0.02);
  EXPECT_LE(fit.error_quantile(0.5), fit.error_quantile(0.9));
  // Same seed, same split, same answer.
  const auto again = fit_interference(paper_design(kRtx2080Ti, 0.02, 5), "rtx-2080-ti", 0.7, 2);
  EXPECT_EQ(again.model, fit.model);
}

TEST(GletInterferenceFit, RefusesWhatCannotBeFitted) {
  std::vector<InterferenceSample> same(20, InterferenceSample{0.1, 0.2, 0.3, 0.4, 1.1});
  EXPECT_THROW(fit_interference(same, "x"), QueryError);
  EXPECT_THROW(fit_interference(paper_design(kRtx2080Ti, 0, 1), "x", 0.001), QueryError);  // 2 training samples
  auto bad = paper_design(kRtx2080Ti, 0, 1);
  bad[7].slowdown = 0;
  EXPECT_THROW(fit_interference(bad, "x"), QueryError);
}
