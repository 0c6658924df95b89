// Exact module scheduling (ours, beyond both papers; docs/reproduction/cost.md "Beyond the
// papers"): the cheapest plan of one module at a rate and latency budget in the brute force's own
// module space (brute_force.h), read off the module's Pareto frontier of (worst-case latency,
// cost). Alg. 1 (Piccolo seed 001 §3.4, Harpagon seed 004 §2.3) walks the configurations once in
// rank order, taking every whole machine it can, and so misses the plans that break Theorem 2's
// structure (Harpagon digest §2.11): one machine fewer of the best-ranked configuration and a
// residual that batches, or a lower-ranked configuration alone. The frontier is searched once
// per (module, rate) up to a latency limit and then answers every budget by binary search, so the
// split prices all of its options exactly for about what Alg. 1 costs per option.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "engine/cost/brute_force.h"
#include "engine/cost/module_scheduler.h"

namespace servescope::engine {

struct FrontierSchedulerOptions {
  Duration limit;       // the longest budget a plan may use (the SLO); longer ones get its plan
  bool padding = true;  // plans may round their last tier up with dummy requests
  // Per frontier search. Beyond it the search is cut and the caller's Alg. 1 plans instead, so the
  // result stays deterministic (nodes are counted, not timed). 2,000,000 cut nothing on the
  // papers' kind of workload but let one plan take 123 ms; 20,000 keeps every plan under 5 ms for
  // 0.1–0.3 points of plans equal to the optimum (BENCHMARKS.md, cost planners).
  std::uint64_t max_nodes = 20'000;
};

class FrontierScheduler {
 public:
  explicit FrontierScheduler(FrontierSchedulerOptions options) : options_(options) {}

  // The cheapest plan of `module` carrying `rate_rps` within `budget`; nullopt when none exists
  // in the space or the search ran out of nodes. `module` must outlive the scheduler: frontiers
  // are cached by its address and the rate.
  std::optional<ModulePlan> schedule(const CostModule& module, double rate_rps, Duration budget);
  // The module's whole frontier up to the limit (latency ascending); empty when the search was cut.
  const std::vector<FrontierPoint>& points(const CostModule& module, double rate_rps);

  std::uint64_t nodes() const { return nodes_; }  // searched so far, all frontiers together

 private:
  struct Frontier {
    std::vector<FrontierPoint> points;
    bool complete = true;
    bool searched = false;
  };
  const Frontier& frontier(const CostModule& module, double rate_rps);

  FrontierSchedulerOptions options_;
  std::map<std::pair<const CostModule*, double>, Frontier> cache_;
  std::uint64_t nodes_ = 0;
};

// The module scheduler a cost planner's options select: the exact one where they ask for it and
// it applies (throughput-cost dispatch, any number of configurations), Alg. 1 with its fallback
// and dummies otherwise, and wherever the exact search ran out of nodes.
class SelectedModuleScheduler {
 public:
  SelectedModuleScheduler(Duration slo, const ModuleSchedulerOptions& options);
  ModulePlan schedule(const CostModule& module, double rate_rps, Duration budget);
  // Whether plans come from the exact scheduler (where its search completes): then no plan of the
  // space at the same budget is cheaper, and a caller need not try others.
  bool exact() const { return exact_; }
  // Where the module's cost steps, as (latency, configuration of its first tier): the exact
  // frontier's points, or none when the exact scheduler does not apply or its search was cut.
  std::vector<std::pair<Duration, std::size_t>> steps(const CostModule& module, double rate_rps);

 private:
  ModuleSchedulerOptions options_;
  bool exact_;
  FrontierScheduler frontier_;
};

}  // namespace servescope::engine
