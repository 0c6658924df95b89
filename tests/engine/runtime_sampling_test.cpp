// Batches drawn from a measured profile's distributions (issue 46): a BatchLatency built from a
// profile that keeps them scales each batch's table time by the measured spread at the quantile
// it is given, and one built from a published profile runs every batch at its table's time.
#include <gtest/gtest.h>

#include "engine/dataplane/batch_latency.h"
#include "model/profile/latency_distribution.h"

namespace servescope::engine {
namespace {

ModelProfile skewed_profile(bool with_distributions) {
  ModelProfile p;
  p.name = "m";
  p.form = ProfileForm::Blocks;
  p.block_count = 1;
  BlockTable t;
  t.gpu = "dev";
  std::vector<LatencyDistribution> row;
  std::vector<Duration> medians;
  for (int b = 1; b <= 2; ++b) {
    LatencyDistribution d;
    d.runs = 100;
    for (const int us : {90, 92, 95, 100, 110, 130, 150, 300, 500})
      d.quantiles.push_back(Duration::microseconds(us * b));
    medians.push_back(d.median());
    row.push_back(d);
  }
  t.blocks.emplace_back(std::vector<int>{1, 2}, medians);
  if (with_distributions) t.distributions.push_back(row);
  p.block_tables.push_back(t);
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
