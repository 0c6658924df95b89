#include "widgets/nice_scale.h"

#include <algorithm>
#include <cmath>

namespace servescope::widgets {

NiceScale nice_scale(double lo, double hi, int max_intervals) {
  max_intervals = std::max(2, max_intervals);
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi < lo) std::swap(lo, hi);
  if (hi - lo < 1e-12 * std::max({1.0, std::abs(lo), std::abs(hi)})) {
    // A flat series: a unit around it (or around 0).
    const double pad = lo == 0 ? 1 : std::abs(lo) / 2;
    lo -= lo == 0 ? 0 : pad;
    hi += pad;
  }
  const double raw = (hi - lo) / max_intervals;
  const int exponent = static_cast<int>(std::floor(std::log10(raw)));
  NiceScale s;
  // Up a decade from the raw step: one of these always covers the range within max_intervals.
  for (int e = exponent; e <= exponent + 1; ++e) {
    const double magnitude = std::pow(10.0, e);
    for (const double m : {1.0, 2.0, 2.5, 5.0}) {
      const double step = m * magnitude;
      // Tolerate rounding in lo/step (0.3 / 0.1 is 2.9999999999999996).
      const double from = std::floor(lo / step + 1e-9) * step, to = std::ceil(hi / step - 1e-9) * step;
      const auto intervals = static_cast<int>(std::lround((to - from) / step));
      if (intervals > max_intervals) continue;
      s.lo = from;
      s.hi = to;
      s.step = step;
      s.intervals = std::max(1, intervals);
      s.decimals = std::max(0, -e + (m == 2.5 ? 1 : 0));
      return s;
    }
  }
  return s;  // not reached for finite input
}

}  // namespace servescope::widgets
