// A cost plan (Piccolo seed 001 §3, Harpagon seed 004 §2): per module of an application its
// tiers of machines, worst-case latency, budget and occupancy cost, and the end-to-end figures
// along the DAG's critical path. The type the planners, the brute force, the JSON writer and the
// tests' independent checker share, without the planners' algorithms.
#pragma once

#include <string>
#include <vector>

#include "engine/cost/cost_problem.h"
#include "engine/cost/module_plan.h"

namespace servescope::engine {

struct SplitStep {
  std::size_t module = 0;
  std::size_t from = 0, to = 0;  // configuration indices
  double lc = 0;
  Duration e2e;
};

struct CostPlan {
  std::string system;
  Dispatch dispatch = Dispatch::ThroughputCost;  // the rule its latencies assume
  bool feasible = false;
  std::string reason;  // why not, when infeasible
  // The planner's space leaves a DNN module nothing to run on: the input cannot be planned by
  // this system at all (a refusal), as opposed to a plan that misses the SLO.
  bool unplannable = false;
  CostProblem problem;              // the configuration space the plan was made in (restricted by the preset)
  std::vector<ModulePlan> modules;  // per module; a fixed step's has no tiers
  std::vector<Duration> latency;    // per module: worst case (a fixed step's own latency)
  std::vector<Duration> budgets;    // per module: its latency scaled so the critical path is the SLO
  double cost = 0;
  Duration e2e_wcl;
  std::vector<SplitStep> trace;  // the splitter's accepted moves
  int reassignments = 0;

  int machines() const;
  double dummy_rps() const;
  bool has_headroom() const;
  // Per module, the papers' worst case at the workload's rate (wcl_at_rate; a CPU step's own
  // latency), and the critical path of those. Equal to `latency` and `e2e_wcl` for a plan made
  // for the stated rates; above them, possibly above the SLO, for one with burst headroom, whose
  // SLO then rests on the simulator check (verified_planning.h), not on the formula.
  std::vector<Duration> latency_at_rates() const;
  Duration e2e_wcl_at_rates() const;
};

// Fills a plan's per-module latency, end-to-end WCL, cost and budgets from its module plans, and
// marks it feasible when the critical path fits the SLO (else says why).
void complete_plan(CostPlan& plan, const CostProblem& problem, const CostDag& dag);

}  // namespace servescope::engine
