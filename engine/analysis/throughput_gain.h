// How the papers turn two throughputs into a headline (seed 003 §5.2): the gain of a system over
// a baseline, and the "effective cost saving" — the share of GPUs the baseline would need beyond
// the system's to carry the same load. gpu-let's 53.5 % for 690 vs 1650 req/s is a misprint of
// its own formula, which gives 58.2 % (digest TC19).
#pragma once

namespace servescope::engine {

// system / baseline − 1: 1650 over 690 req/s is +139.1 %.
inline double throughput_gain(double baseline_rps, double system_rps) {
  return system_rps / baseline_rps - 1;
}

// 1 − baseline / system: 690 vs 1650 req/s is 0.5818.
inline double effective_cost_saving(double baseline_rps, double system_rps) {
  return 1 - baseline_rps / system_rps;
}

}  // namespace servescope::engine
