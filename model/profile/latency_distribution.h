// A measured latency's distribution (issue 46, "profiles as distributions"): the quantiles of the
// timed runs of one profile entry (a block or the whole model, a batch size, a share, a device)
// at fixed levels from p5 to p99.9, and how many runs they summarise. A profile's median and 99th
// percentile (`latency_us`, `p99_us`) are two of them; the simulator draws a batch's duration
// from the whole (the inverse CDF, linear between levels).
//
// Also the statistics the profiler decides with: nearest-rank quantiles of a sample, and the
// median's distribution-free 95 % confidence interval (order statistics), by which it measures an
// entry until the median is known to within a few per cent rather than a fixed number of times.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "model/core/time.h"

namespace servescope {

inline constexpr std::array<double, 9> kDistributionLevels{0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99, 0.999};

// The value at `level` in [0, 1] of a quantity known at kDistributionLevels (`at(i)` at the i-th):
// linear between them, the end values held beyond the ends. What a distribution's quantile and a
// sampled batch's slowdown (engine/dataplane/batch_latency.h) read.
template <typename At>
double at_level(double level, const At& at) {
  if (level <= kDistributionLevels.front()) return at(0);
  for (std::size_t i = 1; i < kDistributionLevels.size(); ++i)
    if (level <= kDistributionLevels[i]) {
      const double t = (level - kDistributionLevels[i - 1]) / (kDistributionLevels[i] - kDistributionLevels[i - 1]);
      return at(i - 1) + t * (at(i) - at(i - 1));
    }
  return at(kDistributionLevels.size() - 1);
}

struct LatencyDistribution {
  std::vector<Duration> quantiles;  // at kDistributionLevels, non-decreasing
  int runs = 0;                     // the timed runs summarised

  // From timed runs in any order (nearest-rank quantiles). Throws std::invalid_argument on none.
  static LatencyDistribution of(std::vector<Duration> runs);
  // At `level` in [0, 1]: linear between the stored levels, the end ones held beyond them.
  Duration quantile(double level) const;
  Duration median() const { return quantile(0.5); }

  bool operator==(const LatencyDistribution&) const = default;
};

// The nearest-rank `level` quantile of a sorted, non-empty sample.
Duration nearest_rank(const std::vector<Duration>& sorted, double level);

// Half the width of the median's 95 % confidence interval, relative to the median, from a sorted
// sample: the order statistics at ranks n/2 ∓ 1.96·√n/2 bound it whatever the distribution.
// Infinite below 8 runs, where those ranks fall outside the sample.
double median_half_width(const std::vector<Duration>& sorted);

}  // namespace servescope
