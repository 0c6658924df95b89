// The exact optimum the cost planners are measured against (Piccolo §3.6 and Harpagon §2.11
// give only "brute force"; this is the digests' design): per module, every Pareto-optimal
// (worst-case latency, cost) plan under throughput-cost dispatch — any number of whole machines
// per configuration in ratio order, then a partial machine or rounding up to whole machines,
// without assuming Theorem 2 — then branch and bound across the DAG for the cheapest plan whose
// critical path fits the SLO. Its plan space contains every plan the planners emit, so its cost
// is a true lower bound. Exponential; a node budget keeps it bounded and deterministic.
#pragma once

#include <cstdint>

#include "engine/cost/cost_planner.h"

namespace servescope::engine {

struct FrontierPoint {
  Duration latency;
  double cost = 0;
  ModulePlan plan;
};

struct BruteForceOptions {
  std::uint64_t max_nodes = 200'000'000;  // search nodes over all modules; beyond it the plan is not proven optimal
};

struct BruteForceStats {
  std::uint64_t nodes = 0;
  bool complete = true;  // false when the node budget ran out
};

// Every Pareto-optimal plan of `module` at its rate with latency ≤ `limit`, latency ascending
// (and cost strictly descending). Without `padding`, no plan rounds a tier up with dummy requests.
std::vector<FrontierPoint> module_frontier(const CostModule& module, Duration limit, BruteForceStats& stats,
                                           std::uint64_t max_nodes = BruteForceOptions{}.max_nodes,
                                           bool padding = true);

// The cheapest plan of the whole application; system "bruteforce". When the node budget ran
// out, the plan is the best found and `stats.complete` is false.
CostPlan plan_brute_force(const CostProblem& problem, const BruteForceOptions& options = {},
                          BruteForceStats* stats = nullptr);

}  // namespace servescope::engine
