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

namespace servescope::engine {

// Which free glet best fit tries first: the paper scans sizes ascending (a partial leftover
// before a fresh GPU); the prototype takes an exact size, then an unpartitioned GPU.
enum class FitOrder { SmallestFirst, UnpartitionedFirst };
// Time sharing a glet: every model's d + Σ L ≤ its SLO (conservative: the order inside a round
// is not fixed), or Nexus's d + L_i ≤ SLO_i.
enum class MergeRule { Conservative, Nexus };

// How a model's rate is cut into glets: Elastic Partitioning's min(p_eff, p_req), or the greedy
// best-fit baseline's smallest size whose saturated throughput exceeds the rest (digest §4.11),
// always at the saturated batch, with no time sharing.
enum class PlacementRule { Elastic, GreedyBestFit };

struct GletPlannerOptions {
  PlacementRule rule = PlacementRule::Elastic;
  int max_models_per_glet = 3;
  // A model counts as served when at most max(rate_epsilon_rps, rate_epsilon_fraction × its rate)
  // is left over (digest gap 14: the prototype's flat 15 req/s is a lot for a small model).
  double rate_epsilon_rps = 1;
  double rate_epsilon_fraction = 0.01;
  double slack_rps(double requested_rps) const {
    return std::max(rate_epsilon_rps, rate_epsilon_fraction * requested_rps);
  }
  // What a finished pass may still leave a model short, as a fraction of its rate, once
  // interference slowed its glets and the top-ups are done: the prototype's 0.85 trigger (digest
  // gap 10), counting on the rate headroom to cover it. 0 demands every model within the slack.
  double shortfall_tolerance = 0.15;
  FitOrder fit = FitOrder::SmallestFirst;
  MergeRule merge = MergeRule::Conservative;
  bool temporal_sharing = true;
  bool split = true;  // false: glets stay as the starting layout has them (the exhaustive ideal)
};

struct GletPlannedModel {
  std::string name;
  double rate_rps = 0;  // asked for
  Duration slo;
  double assigned_rps = 0;  // what the layout's glets carry
  bool operator==(const GletPlannedModel&) const = default;
};

struct GletPlan {
  std::string system;                    // glet, glet-noint, sbp, sbp-even, greedy-bestfit, ideal
  std::string gpu;                       // catalog id of the GPUs the layout splits
  std::vector<GletPlannedModel> models;  // GletAssignment::model indexes these
  bool feasible = false;
  GletLayout layout;
  int gpus = 0;                      // GPUs the successful attempt had (SCALING's N)
  int next_gpus = 0;                 // where the next period starts: the GPUs in use, or the previous N on failure
  std::vector<double> unplaced_rps;  // per model: rate no glet carries
  std::string message;               // why it failed, naming the model
};

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
