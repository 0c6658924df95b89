#include "model/profile/two_modes.h"

#include <algorithm>
#include <cmath>

namespace servescope {

std::optional<TwoModes> two_modes(std::vector<Duration> runs) {
  const std::size_t n = runs.size();
  if (n < 20) return std::nullopt;
  std::ranges::sort(runs);
  if (runs.front() <= Duration()) return std::nullopt;
  // Prefix sums of the log-times and their squares: each part's mean and variance in O(1).
  std::vector<double> prefix(n + 1, 0.0), prefix_sq(n + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = std::log(static_cast<double>(runs[i].count_ns()));
    prefix[i + 1] = prefix[i] + x;
    prefix_sq[i + 1] = prefix_sq[i] + x * x;
  }
  const auto mean = [&](std::size_t a, std::size_t b) { return (prefix[b] - prefix[a]) / static_cast<double>(b - a); };
  const auto variance = [&](std::size_t a, std::size_t b) {
    const double m = mean(a, b);
    return std::max(0.0, (prefix_sq[b] - prefix_sq[a]) / static_cast<double>(b - a) - m * m);
  };
  // The least within-part spread is the largest between-part one: n₁·n₂·(μ₂ − μ₁)².
  const auto least = std::max<std::size_t>(2, static_cast<std::size_t>(std::ceil(0.15 * static_cast<double>(n))));
  std::size_t best = 0;
  double best_between = -1;
  for (std::size_t k = least; k + least <= n; ++k) {
    const double d = mean(k, n) - mean(0, k);
    const double between = static_cast<double>(k) * static_cast<double>(n - k) * d * d;
    if (between > best_between) {
      best_between = between;
      best = k;
    }
  }
  if (best == 0) return std::nullopt;
  const double pooled = std::sqrt((variance(0, best) + variance(best, n)) / 2);
  const double separation = mean(best, n) - mean(0, best);
  const auto median_of = [&](std::size_t a, std::size_t b) { return runs[a + (b - a) / 2]; };
  TwoModes modes{median_of(0, best), median_of(best, n), static_cast<double>(n - best) / static_cast<double>(n)};
  if (modes.high.to_s() < 1.15 * modes.low.to_s()) return std::nullopt;
  if (pooled > 0 && separation / pooled < 4) return std::nullopt;
  return modes;
}

}  // namespace servescope
