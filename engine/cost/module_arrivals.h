// What reaches each module of a cost plan under bursty traffic (ours, beyond Piccolo seed 001 and
// Harpagon seed 004, whose Theorem 1 assumes smooth streams; docs/reproduction/cost.md
// "Planning for Poisson traffic"). A source module receives the workload's arrival process. A
// module below a parent receives the parent's finished batches: bursts of the parent's batch
// times the fan-out, spaced as the parent's batches form, i.e. gaps that are sums of that many
// arrivals (Erlang of the parent's batch), not Poisson. Measured against the whole application
// in the simulator over seeds 1-60, this shape predicts each module's misses without bias, where
// Poisson arrivals under-estimate them and Poisson bursts over-estimate them.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/cost/cost_plan.h"
#include "engine/dataplane/request.h"

namespace servescope::engine {

struct ModuleArrivals {
  double rate_rps = 0;       // real requests per second
  double burst = 1;          // requests that arrive together
  double spacing_shape = 1;  // gaps between bursts are Gamma of this shape (1: exponential)
};

// Per module of `plan`, at the rates of `problem` (the real ones; the plan may be sized for more).
// `source_shape` is the workload's: 1 for Poisson, a Gamma process's shape otherwise.
std::vector<ModuleArrivals> module_arrivals(const CostProblem& problem, const CostDag& dag, const CostPlan& plan,
                                            double source_shape = 1);

// The arrival instants of `arrivals` over [0, span), the same for the same seed.
std::vector<Time> arrival_instants(const ModuleArrivals& arrivals, Duration span, std::uint64_t seed);

}  // namespace servescope::engine
