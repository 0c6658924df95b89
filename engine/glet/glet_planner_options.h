// The choices gpu-let's planner leaves open (seed 003 §4.2–§4.5, digest §4.6–§4.11 and its
// gaps): how rates are cut into glets, how best fit and time sharing decide, and when a model
// counts as served. The baselines are the same planner with some of them fixed.
#pragma once

#include <algorithm>

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

}  // namespace servescope::engine
