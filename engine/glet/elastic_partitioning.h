// gpu-let's planner (seed 003 §4.2–§4.5, digest §4.6–§4.9): Elastic Partitioning gives each model,
// least room first, glets of size min(p_eff, p_req) by best fit, splitting whole GPUs as needed,
// and folds residue glets into partly idle ones by time sharing; SCALING retries with one more
// GPU until the rates fit. The baselines of §4.11 (SBP, greedy best-fit, the exhaustive ideal)
// are the same machinery with fewer choices (glet_baselines.h).
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "engine/glet/glet_latency.h"
#include "engine/glet/glet_layout.h"
#include "engine/glet/glet_plan.h"
#include "engine/glet/glet_planner_options.h"

namespace servescope::engine {

// One pass of Algorithm 1 over `start` (a whole free GPU per entry when empty, `gpus` of them).
// Glets of `start` that already host models keep them (the prototype's incremental
// rescheduling); each model is then placed for its whole rate on what is free.
GletPlan elastic_partitioning(const GletLatency& latency, const GletPlannerOptions& options, int gpus,
                              const GletLayout& start = {});

// Algorithm 2: N from `previous_gpus` up to `gpu_limit` until a pass succeeds. On failure the plan
// is infeasible and next_gpus = previous_gpus (the caller keeps its previous schedule).
GletPlan plan_glet(const GletLatency& latency, const GletPlannerOptions& options, int previous_gpus, int gpu_limit);
// The same loop around any attempt at N GPUs (the baselines' fixed layouts).
GletPlan scale_gpus(int previous_gpus, int gpu_limit, const std::function<GletPlan(int gpus)>& attempt);

// Models in the order Elastic Partitioning takes them: rate × SLO ascending (the least room for
// time sharing first), ties by index descending (prototype).
std::vector<int> elastic_order(const GletLatency& latency);

}  // namespace servescope::engine
