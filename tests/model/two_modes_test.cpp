// two_modes(): the runs of a profile entry that fall in two speeds, told apart from one speed's
// spread and a few slow runs.
#include "model/profile/two_modes.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace servescope;

namespace {

// `count` runs evenly spread over ±`spread` of `centre_ms` (relative, in log space).
std::vector<Duration> cluster(double centre_ms, double spread, int count) {
  std::vector<Duration> runs;
  for (int i = 0; i < count; ++i) {
    const double at = count == 1 ? 0 : -spread + 2 * spread * i / (count - 1);
    runs.push_back(Duration::from_s(centre_ms * std::exp(at) / 1000));
  }
  return runs;
}

std::vector<Duration> join(std::vector<Duration> a, const std::vector<Duration>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

TEST(TwoModes, FindsTheTwoSpeedsOfABimodalEntry) {
  // resnet18's block 1 at batch 3 on both vCPUs: 2.67 ms when the second thread finds a vCPU,
  // 4.65 ms when it waits (docs/reproduction/fidelity.md), in the order they might run.
  // Made-up durations, no clock: each mode is exactly its group's median (the upper middle run).
  const auto fast = cluster(2.67, 0.02, 24), slow = cluster(4.65, 0.02, 16);
  const auto modes = two_modes(join(slow, fast));
  ASSERT_TRUE(modes);
  EXPECT_EQ(modes->low, fast[fast.size() / 2]);
  EXPECT_EQ(modes->high, slow[slow.size() / 2]);
  EXPECT_DOUBLE_EQ(modes->high_fraction, 0.4);
}

TEST(TwoModes, OneSpeedWithItsSpreadOrAFewSlowRunsIsNot) {
  // Even spread over ±20 % (a uniform sample splits at 3.5 standard deviations, under 4).
  EXPECT_FALSE(two_modes(cluster(3.0, 0.2, 60)));
  // Two runs of 40 far slower: a tail, not a mode (each mode needs 15 % of the runs).
  EXPECT_FALSE(two_modes(join(cluster(3.0, 0.02, 38), cluster(9.0, 0.01, 2))));
  // Two tight groups 5 % apart: one speed as far as a profile is concerned.
  EXPECT_FALSE(two_modes(join(cluster(3.0, 0.005, 20), cluster(3.15, 0.005, 20))));
  // Too few runs to say.
  EXPECT_FALSE(two_modes(join(cluster(2.67, 0.02, 9), cluster(4.65, 0.02, 9))));
  EXPECT_FALSE(two_modes({}));
}
