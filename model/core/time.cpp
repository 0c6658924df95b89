#include "model/core/time.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace servescope {

Duration Duration::from_us(double us) {
  const double ns = std::round(us * 1e3);
  if (!std::isfinite(ns) || std::fabs(ns) > 9.2e18)
    throw std::out_of_range("duration out of range: " + std::to_string(us) + " us");
  return Duration(static_cast<std::int64_t>(ns));
}

Duration Duration::saturated_from_s(double s) {
  const double ns = std::round(s * 1e9);
  if (std::isnan(ns) || ns >= 9.2e18) return max();
  if (ns <= -9.2e18) return Duration(-INT64_MAX);
  return Duration(static_cast<std::int64_t>(ns));
}

std::string format_duration(Duration d) {
  const double ns = static_cast<double>(d.count_ns());
  const double mag = std::fabs(ns);
  char buf[48];
  if (mag < 1e3)
    std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(d.count_ns()));
  else if (mag < 1e6)
    std::snprintf(buf, sizeof buf, "%.4g µs", ns / 1e3);
  else if (mag < 1e9)
    std::snprintf(buf, sizeof buf, "%.4g ms", ns / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.4g s", ns / 1e9);
  return buf;
}

}  // namespace servescope
