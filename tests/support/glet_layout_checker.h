// An independent re-check of a gpu-let layout against the schedulability conditions (seed 003,
// digest §2.3 and TC18): allowed splits, models per glet, latencies recomputed with the final
// neighbours' interference, each glet's mode condition, and every model's rate carried.
#pragma once

#include <string>
#include <vector>

#include "engine/glet/glet_latency.h"
#include "engine/glet/glet_layout.h"
#include "engine/glet/glet_planner_options.h"

namespace servescope::test {

// Empty when the layout holds; else one line per violation. A model may fall short of its rate by
// max(epsilon_rps, epsilon_fraction × rate).
std::vector<std::string> check_glet_layout(const engine::GletLatency& latency, const engine::GletLayout& layout,
                                           double epsilon_rps, double epsilon_fraction = 0,
                                           engine::MergeRule merge = engine::MergeRule::Conservative,
                                           int max_models_per_glet = 3);

}  // namespace servescope::test
