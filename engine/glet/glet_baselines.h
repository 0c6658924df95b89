// The systems gpu-let is compared with (seed 003 §2.4, §5; digest §4.11), all on the Elastic
// Partitioning machinery with fewer choices: SBP (Nexus's squishy bin packing on whole GPUs),
// SBP on GPUs split evenly 50:50, greedy best-fit partitioning, glet without interference, and
// the exhaustive ideal that tries every fixed layout of {100}, {20,80}, {40,60}, {50,50}.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/glet/elastic_partitioning.h"

namespace servescope::engine {

// glet (with the interference model), glet-noint, sbp, sbp-even, greedy-bestfit, ideal.
const std::vector<std::string>& glet_systems();

// Plans `models` with one system, scaling from `previous_gpus` up to `gpu_limit`. `latency`
// carries the GPU, sizes, batch cap, safety and the interference model glet and ideal use.
// Throws QueryError for an unknown system, or for glet/ideal without an interference model.
GletPlan plan_glet_system(const std::string& system, const std::vector<GletModel>& models,
                          const GletLatencyOptions& latency, const GletPlannerOptions& planner, int previous_gpus,
                          int gpu_limit);

// Every fixed layout of `gpus` GPUs over the splits the sizes allow ({100} and {p, 100 − p}
// with both in `sizes`), each GPU's choice in the order of `splits`: 4^N for the paper's sizes.
std::vector<std::vector<int>> glet_splits(const std::vector<int>& sizes);
// Calls `visit` with each layout until it returns true; returns how many it visited.
long long for_each_fixed_layout(int gpus, const std::vector<std::vector<int>>& splits,
                                const std::function<bool(const GletLayout&)>& visit);

}  // namespace servescope::engine
