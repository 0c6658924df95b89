#include "engine/symphony/autoscaler.h"

#include <algorithm>
#include <cmath>

namespace servescope::engine {

ScalingAdvice Autoscaler::step(int gpus, double bad_rate, double idle_fraction, Time window_start) {
  ScalingAdvice a{window_start, gpus, bad_rate, idle_fraction, 0, 0};
  if (cooldown_left_ > 0) {
    --cooldown_left_;
    return a;
  }
  const double r = std::clamp(bad_rate, 0.0, options_.max_bad_rate);
  const double f = std::clamp(idle_fraction, 0.0, 1.0);
  if (r > options_.bad_rate_threshold) {
    // A small epsilon keeps exact products (24 · 0.2 / 0.8 = 6) from rounding up to 7.
    a.add = static_cast<int>(std::ceil(gpus * r / (1.0 - r) - 1e-9));
  } else if (f > 0) {
    a.release = std::min(static_cast<int>(std::floor(gpus * f + 1e-9)), std::max(0, gpus - options_.min_gpus));
  }
  if (a.add > 0 || a.release > 0) cooldown_left_ = options_.cooldown_windows;
  return a;
}

std::vector<ScalingAdvice> autoscaling_advice(const MetricsCollector& metrics, int gpus, AutoscalerOptions options) {
  std::vector<ScalingAdvice> out;
  const auto bin = metrics.bin();
  const auto per_window = std::max<std::int64_t>(1, options.window.count_ns() / bin.count_ns());
  const auto& arrivals = metrics.arrivals_per_bin();
  const auto& on_time = metrics.on_time_per_bin();
  const auto bins = static_cast<std::int64_t>(arrivals.size());
  Autoscaler scaler(options);
  for (std::int64_t w = 0; (w + 1) * per_window <= bins; ++w) {
    std::uint64_t arrived = 0, served = 0;
    std::int64_t busy = 0;
    for (std::int64_t b = w * per_window; b < (w + 1) * per_window; ++b) {
      arrived += arrivals[static_cast<std::size_t>(b)];
      served += on_time[static_cast<std::size_t>(b)];
      for (const auto& gpu : metrics.gpu_busy_ns())
        if (b < static_cast<std::int64_t>(gpu.size())) busy += gpu[static_cast<std::size_t>(b)];
    }
    const double span = static_cast<double>(per_window * bin.count_ns()) * gpus;
    const double r = arrived ? 1.0 - static_cast<double>(served) / static_cast<double>(arrived) : 0.0;
    const double f = span > 0 ? 1.0 - std::min(1.0, static_cast<double>(busy) / span) : 0.0;
    out.push_back(scaler.step(gpus, r, f, Duration::nanoseconds(w * per_window * bin.count_ns())));
  }
  return out;
}

}  // namespace servescope::engine
