#include "model/profile/stable_timing.h"

#include <algorithm>
#include <limits>

#include "model/profile/latency_distribution.h"

namespace servescope {

RepeatPolicy RepeatPolicy::fixed(int runs, int warmup) {
  RepeatPolicy p;
  p.warmup = warmup;
  p.min_runs = p.max_runs = std::max(1, runs);
  return p;
}

StableTiming time_until_stable(const RepeatPolicy& policy, const std::function<Duration()>& run_once,
                               const std::function<bool()>& out_of_time) {
  for (int i = 0; i < policy.warmup; ++i)
    (void)run_once();
  StableTiming out;
  out.half_width = std::numeric_limits<double>::infinity();
  const int min_runs = std::max(1, policy.min_runs);
  const int max_runs = std::max(min_runs, policy.max_runs);
  std::vector<Duration> sorted;
  while (static_cast<int>(out.runs.size()) < max_runs) {
    out.runs.push_back(run_once());
    sorted.insert(std::ranges::upper_bound(sorted, out.runs.back()), out.runs.back());
    if (static_cast<int>(out.runs.size()) < min_runs) continue;
    out.half_width = median_half_width(sorted);
    if (out.half_width <= policy.precision || (out_of_time && out_of_time())) break;
  }
  out.half_width = median_half_width(sorted);
  out.stable = out.half_width <= policy.precision;
  return out;
}

}  // namespace servescope
