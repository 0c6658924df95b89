// Batches drawn from a measured profile's distributions (issue 46): a BatchLatency built from a
// profile that keeps them scales each batch's table time by the measured spread at the quantile
// it is given, and one built from a published profile runs every batch at its table's time.
#include <gtest/gtest.h>

#include "engine/dataplane/batch_latency.h"
#include "model/profile/latency_distribution.h"
#include "tests/support/measured_profile.h"

namespace servescope::engine {
namespace {

// Batch b takes b × the skewed batch-1 times (90 µs … 500 µs at b = 1).
ModelProfile skewed_profile(bool with_distributions) {
  auto p = test::measured_one_block_profile("dev", 2,
                                            [](int b, std::size_t level) { return test::kSkewedUs[level] / 10 * b; });
  if (!with_distributions) p.block_tables.front().distributions.clear();
  return p;
}

TEST(RuntimeSampling, ABatchIsItsTableTimeScaledByTheSpreadAtItsQuantile) {
  const BatchLatency l(skewed_profile(true), "dev", GpuShare::whole());
  ASSERT_TRUE(l.has_spread());
  EXPECT_EQ(l.at(1), Duration::microseconds(100));
  EXPECT_EQ(l.sample(1, 0.5), l.at(1)) << "the median draws the table's time";
  EXPECT_EQ(l.sample(2, 0.99), Duration::microseconds(600));
  EXPECT_EQ(l.sample(1, 0.0), Duration::microseconds(90));
  EXPECT_EQ(l.sample(1, 0.9945), Duration::microseconds(400)) << "halfway between p99 and p99.9";
  // Drawn at evenly spaced quantiles, the mean is the distribution's, above its median.
  double sum = 0;
  for (int i = 0; i < 1000; ++i)
    sum += l.sample(1, (i + 0.5) / 1000).to_us();
  EXPECT_GT(sum / 1000, 110.0);
  EXPECT_LT(sum / 1000, 130.0);

  const BatchLatency published(skewed_profile(false), "dev", GpuShare::whole());
  EXPECT_FALSE(published.has_spread());
  for (const double u : {0.0, 0.5, 0.999})
    EXPECT_EQ(published.sample(2, u), published.at(2));
}

}  // namespace
}  // namespace servescope::engine
