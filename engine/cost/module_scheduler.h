// Module scheduling (Piccolo seed 001 §3.1 and §3.4, Harpagon seed 004 §2.3–§2.5): given a
// module's rate and latency budget, choose the tiers of machines that serve it at least cost.
// GenerateConfig (Alg. 1) walks the configurations in throughput-cost order, taking whole
// machines while they meet the budget and ending on one partial machine; the one- and two-
// configuration schedulers are the baselines' (Nexus, Scrooge, InferLine, Clipper). When Alg. 1
// strands a residual too small to collect a batch in time, the fallback rounds up to whole
// machines; the dummy generator pads the rate when a whole extra machine is cheaper than the tail.
#pragma once

#include "engine/cost/module_plan.h"

namespace servescope::engine {

enum class DummyMode { Off, Piccolo, Harpagon, Both };
std::string_view to_string(DummyMode mode);

struct ModuleSchedulerOptions {
  Dispatch dispatch = Dispatch::ThroughputCost;
  int max_configs = 0;   // tiers per module: 0 any (Alg. 1), 1 OneTuple, 2 TwoTuple
  bool fallback = true;  // pad a failed Alg. 1 to whole machines (Harpagon digest §2.3)
  DummyMode dummy = DummyMode::Harpagon;
  // Also re-run Alg. 1 on the padded rate, not just round the tier up (Harpagon digest §2.5 (b));
  // Piccolo's formula always re-runs.
  bool dummy_rerun = false;
  // Also weigh every configuration carrying the whole rate alone (ours; docs/reproduction/cost.md
  // "Beyond the papers"). Alg. 1's walk takes machines of the best-ranked configuration first; when
  // the residual that leaves cannot collect a batch in time, a lower-ranked configuration alone
  // (one machine and a third of another) can cost a third less than the fallback's padding.
  bool each_alone = false;
  // Plan each module exactly instead (ours; frontier_scheduler.h): the cheapest plan of the brute
  // force's module space at the budget. Throughput-cost dispatch and any number of configurations
  // only; the cost planner applies it, schedule_module() below is Alg. 1 whatever it says.
  bool exact = false;
};

// Alg. 1 alone on `rate_rps` under `budget`. On failure `feasible` is false and `tiers` holds
// what it had placed.
ModulePlan generate_config(const CostModule& module, double rate_rps, Duration budget, Dispatch dispatch);
// The first configuration (in throughput-cost order) that carries all of the rate alone.
ModulePlan one_tuple(const CostModule& module, double rate_rps, Duration budget, Dispatch dispatch);
// A majority configuration of whole machines plus one residual configuration (Harpagon §2.4),
// or one configuration alone when that is cheaper.
ModulePlan two_tuple(const CostModule& module, double rate_rps, Duration budget, Dispatch dispatch);
// The digest's recipe alone: the first configuration whose whole machines meet the budget, then
// the residual on the one configuration that carries it most cheaply.
ModulePlan majority_and_residual(const CostModule& module, double rate_rps, Duration budget, Dispatch dispatch);

// The scheduler the options select, then the fallback and the dummy generator. A plan that
// still cannot meet the budget comes back with feasible == false.
ModulePlan schedule_module(const CostModule& module, double rate_rps, Duration budget,
                           const ModuleSchedulerOptions& options);

// The dummy generator on a feasible plan: the cheapest padded alternative, or the plan itself.
ModulePlan add_dummy(const CostModule& module, double rate_rps, Duration budget, const ModuleSchedulerOptions& options,
                     ModulePlan plan);

}  // namespace servescope::engine
