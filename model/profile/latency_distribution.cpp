#include "model/profile/latency_distribution.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace servescope {

Duration nearest_rank(const std::vector<Duration>& sorted, double level) {
  const auto rank = static_cast<std::size_t>(std::ceil(level * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

LatencyDistribution LatencyDistribution::of(std::vector<Duration> runs) {
  if (runs.empty()) throw std::invalid_argument("a latency distribution needs at least one timed run");
  std::ranges::sort(runs);
  LatencyDistribution d;
  d.runs = static_cast<int>(runs.size());
  for (const double level : kDistributionLevels)
    d.quantiles.push_back(nearest_rank(runs, level));
  return d;
}

Duration LatencyDistribution::quantile(double level) const {
  if (quantiles.size() != kDistributionLevels.size()) return quantiles.empty() ? Duration() : quantiles.front();
  return Duration::nanoseconds(
      std::llround(at_level(level, [&](std::size_t i) { return static_cast<double>(quantiles[i].count_ns()); })));
}

double median_half_width(const std::vector<Duration>& sorted) {
  const auto n = static_cast<double>(sorted.size());
  const double spread = 1.96 * std::sqrt(n) / 2;
  const auto lower = static_cast<long>(std::floor(n / 2 - spread));  // 1-based ranks
  const auto upper = static_cast<long>(std::ceil(n / 2 + spread)) + 1;
  if (lower < 1 || upper > static_cast<long>(sorted.size())) return std::numeric_limits<double>::infinity();
  const double median = nearest_rank(sorted, 0.5).to_s();
  if (!(median > 0)) return std::numeric_limits<double>::infinity();
  return (sorted[static_cast<std::size_t>(upper - 1)].to_s() - sorted[static_cast<std::size_t>(lower - 1)].to_s()) /
         (2 * median);
}

}  // namespace servescope
