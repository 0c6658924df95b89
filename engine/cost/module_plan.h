// One module's share of a cost plan (Piccolo seed 001 §3.1, Harpagon seed 004 §2.2): tiers of
// machines that run one configuration each, listed in throughput-cost order, the last possibly a
// partial machine, plus the dummy requests the frontend adds. How long a request may take on a
// tier depends on how the frontend dispatches: throughput-cost batches (TC, Theorem 1: the tier
// collects at the rate of itself and every tier ranked below it), round robin of single requests
// (RR: each machine collects at its own rate, 2d when full) or batches per configuration group
// (DT, Scrooge: the tier collects at its own rate).
#pragma once

#include <string_view>
#include <vector>

#include "engine/cost/cost_problem.h"

namespace servescope::engine {

enum class Dispatch { ThroughputCost, RoundRobin, DirectThroughput };
std::string_view to_string(Dispatch dispatch);

struct Tier {
  std::size_t config = 0;  // index into the module's sorted configurations
  double machines = 0;     // a whole number ≥ 1 for full machines, in (0, 1) for a partial one
  bool partial = false;
  // Filled by evaluate():
  double rate_rps = 0;     // load it carries (dummies included)
  double collect_rps = 0;  // the rate its batches collect at under the dispatch rule
  Duration wcl;            // worst-case latency d + b / collect

  static Tier whole(std::size_t config, double machines) { return make(config, machines, false); }
  static Tier fraction(std::size_t config, double machines) { return make(config, machines, true); }

 private:
  static Tier make(std::size_t config, double machines, bool partial) {
    Tier t;
    t.config = config;
    t.machines = machines;
    t.partial = partial;
    return t;
  }
};

struct ModulePlan {
  std::vector<Tier> tiers;
  double dummy_rps = 0;     // added by the frontend; executed and paid for, never forwarded
  double headroom_rps = 0;  // capacity planned beyond the rate for bursts (CostPlanOptions::burst_z)
  Duration wcl;             // worst tier
  double cost = 0;          // Σ machines · price (occupancy-proportional, Piccolo §1.3)
  bool feasible = false;
  bool fallback = false;  // Alg. 1 failed and a padded plan stands in (Harpagon digest §2.3)

  int machines() const;  // machines to provision: Σ ceil
  double served_rps() const;
};

// Sorts the tiers (configuration order, full before partial), then fills every tier's rate,
// collection rate and WCL, and the plan's WCL and cost. Total rate = Σ tiers (real + dummy).
void evaluate(ModulePlan& plan, const CostModule& module, Dispatch dispatch);

// Whether a plan lies in the space the exact brute force searches (Harpagon digest §2.11): at
// most one partial tier, ranked last; dummies only to round the last tier up to whole machines
// (no partial tier, and less than one machine of padding). Planners keep their plans inside it,
// so the brute force stays a true lower bound.
bool in_search_space(const ModulePlan& plan, const CostModule& module);

// The latency a module has when all of `rate_rps` runs on `config` alone (the splitter's fluid
// estimate, Piccolo §3.2): d + b/T for TC and DT, d + b/min(t, T) for RR.
Duration fluid_latency(const CostConfig& config, double rate_rps, Dispatch dispatch);
// Its fluid cost p · T / t.
inline double fluid_cost(const CostConfig& config, double rate_rps) {
  return config.price * rate_rps / config.throughput_rps;
}

// The same worst case when the module receives `rate_rps` real requests (plus the plan's dummies)
// instead of what its tiers were planned for: TC fills the tiers in rank order, RR and DT spread
// the load over them by their planned rates. A plan with burst headroom (CostPlanOptions::burst_z)
// is sized for more than the workload's rate, and at the real rate its lower tiers collect their
// batches more slowly: the papers' formula then gives more than the WCL the plan was made for.
// Tiers that receive nothing are left out.
Duration wcl_at_rate(const ModulePlan& plan, const CostModule& module, double rate_rps, Dispatch dispatch);

// How many different configurations the plan's tiers use (the baselines allow one or two).
int distinct_configs(const ModulePlan& plan);

// A readable plan summary: "b100×2 | b20×1 | b5×0.10".
std::string describe(const ModulePlan& plan, const CostModule& module);

}  // namespace servescope::engine
