// The two capacity figures the papers report, found by bisection over the offered rate with
// the same seed at every probe: goodput (Symphony seed 002 §1.4: the highest total rate at
// which every model's p99 latency stays within its SLO, drops counting as misses) and the
// highest rate at which overall SLO attainment stays ≥ 99 % (PPipe's and glet's capacity).
#pragma once

#include <functional>
#include <vector>

#include "engine/systems/scenario_simulation.h"

namespace servescope::engine {

struct GoodputOptions {
  double precision = 0.01;  // stop when the bracket is narrower than this fraction of its top
  double attainment_target = 0.99;
  double model_quantile = 0.99;  // every model's miss fraction must stay ≤ 1 − this
  int max_probes = 40;
};

struct GoodputProbe {
  double rate_rps = 0;
  double slo_attainment = 0;
  double worst_model_miss = 0;
  double goodput_rps = 0;
};

struct GoodputResult {
  double goodput_rps = 0;             // highest rate meeting the per-model p99 criterion
  double max_rate_at_target_rps = 0;  // highest rate with overall attainment ≥ target
  double nominal_capacity_rps = 0;
  std::vector<GoodputProbe> probes;  // in the order they ran
};

GoodputResult search_goodput(const Scenario& scenario, SimulationSpec spec, const GoodputOptions& options = {},
                             const std::function<void(const GoodputProbe&)>& on_probe = {});

}  // namespace servescope::engine
