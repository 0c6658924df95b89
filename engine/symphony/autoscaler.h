// Symphony's autoscaling advice (seed 002 §3.5, §5.4): with a flat-top scheduler the bad rate r
// and the GPU idle fraction f are honest signals, so over each measurement window
//   r > threshold  →  add ⌈N·r/(1−r)⌉ GPUs   (serving the whole load needs N/(1−r))
//   else f > 0     →  release ⌊N·f⌋ GPUs     (the busy work fits on N·(1−f)), highest ids first.
// The paper leaves the threshold, window and hysteresis open (digest gap G8); ours: 1 % bad rate,
// 30 s windows, and after any change two windows of cooldown while the cluster settles.
#pragma once

#include <vector>

#include "engine/metrics/run_metrics.h"

namespace servescope::engine {

struct AutoscalerOptions {
  double bad_rate_threshold = 0.01;
  Duration window = Duration::seconds(30);
  int cooldown_windows = 2;
  double max_bad_rate = 0.95;  // r is clamped here so N·r/(1−r) stays finite
  int min_gpus = 1;
};

struct ScalingAdvice {
  Time window_start;
  int gpus = 0;  // N during the window
  double bad_rate = 0;
  double idle_fraction = 0;
  int add = 0;
  int release = 0;
};

class Autoscaler {
 public:
  explicit Autoscaler(AutoscalerOptions options = {}) : options_(options) {}
  // One window's advice. Remembers changes to apply the cooldown.
  ScalingAdvice step(int gpus, double bad_rate, double idle_fraction, Time window_start = Time());

 private:
  AutoscalerOptions options_;
  int cooldown_left_ = 0;
};

// Advice for every whole window of a finished run, as if the GPU count followed it.
std::vector<ScalingAdvice> autoscaling_advice(const MetricsCollector& metrics, int gpus,
                                              AutoscalerOptions options = {});

}  // namespace servescope::engine
