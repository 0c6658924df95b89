// A measured one-block profile for the tests of sampled batch times and planning at a quantile
// (issue 46): batch b (1..n) keeps the distribution quantile_us(b, level) at every level of
// kDistributionLevels, its table the medians, as `servescope-cli profile` writes them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/profile/batch_curve.h"
#include "model/profile/latency_distribution.h"
#include "model/profile/model_profile.h"

namespace servescope::test {

inline ModelProfile measured_one_block_profile(
    const std::string& gpu, int batches, const std::function<std::int64_t(int batch, std::size_t level)>& quantile_us) {
  ModelProfile p;
  p.name = "m";
  p.form = ProfileForm::Blocks;
  p.block_count = 1;
  BlockTable t;
  t.gpu = gpu;
  std::vector<LatencyDistribution> row;
  std::vector<Duration> medians;
  for (int b = 1; b <= batches; ++b) {
    LatencyDistribution d;
    d.runs = 50;
    for (std::size_t level = 0; level < kDistributionLevels.size(); ++level)
      d.quantiles.push_back(Duration::microseconds(quantile_us(b, level)));
    medians.push_back(d.median());
    row.push_back(d);
  }
  t.blocks.emplace_back(batch_range(batches), medians);
  t.distributions.push_back(row);
  p.block_tables.push_back(t);
  return p;
}

// Levels p5 … p99.9 of a batch measured with a long right tail, in µs, for batch 1.
inline constexpr std::int64_t kSkewedUs[] = {900, 920, 950, 1000, 1100, 1300, 1500, 3000, 5000};

}  // namespace servescope::test
