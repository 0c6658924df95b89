// Timing one profile entry until its median is known (issue 46): after `warmup` untimed runs, at
// least `min_runs` timed ones, then more until the median's 95 % confidence interval is within
// ±`precision` of it, `max_runs` are spent, or the caller says the entry's share of the time
// budget is. A fixed count (`profile --repeat N`) is the policy with min = max = N.
//
// The clock is the caller's (`run_once` times one run and returns it; `out_of_time` reads the
// budget), so the policy itself is tested on given samples.
#pragma once

#include <functional>
#include <vector>

#include "model/core/time.h"

namespace servescope {

struct RepeatPolicy {
  int warmup = 3;
  int min_runs = 10;
  int max_runs = 400;
  double precision = 0.02;  // the median's 95 % interval half-width, relative

  static RepeatPolicy fixed(int runs, int warmup);
};

struct StableTiming {
  std::vector<Duration> runs;  // in the order they ran
  double half_width = 0;       // the median's 95 % interval half-width, relative (infinite: too few runs)
  bool stable = false;         // half_width ≤ the policy's precision
};

StableTiming time_until_stable(const RepeatPolicy& policy, const std::function<Duration()>& run_once,
                               const std::function<bool()>& out_of_time = {});

}  // namespace servescope
