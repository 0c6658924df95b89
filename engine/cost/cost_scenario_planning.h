// Planning a scenario's application with a cost planner, end to end, as the CLI and the GUI both
// do it: the problem from the scenario, the preset, the plan (checked in the simulator against
// the workload's arrival process unless told not to), an optional simulated run at the planned
// rates, and the plan's JSON with the check and the run recorded in it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/cost/cost_scenario.h"
#include "engine/cost/verified_planning.h"

namespace servescope::engine {

struct CostScenarioRequest {
  std::string system = "harpagon";  // a cost preset or "bruteforce"
  CostScenarioOptions scenario;
  bool verify = true;      // plan for the workload's arrivals (plan_cost_verified); off: the papers' plan
  double burst_z = 0;      // the count formula's starting z (0: the verifier's queueing model, or none without verify)
  double verify_s = 60;    // each check in the simulator runs this long
  double simulate_s = 0;   // then run the plan this long at its rates (0: no run)
  std::uint64_t seed = 1;  // of the checks and of the run
};

struct CostScenarioOutcome {
  CostProblem problem;
  CostPlan plan;
  std::optional<VerifiedPlan> verified;
  std::optional<CostSimulationResult> simulated;
  nlohmann::json json;  // cost_plan_to_json plus "verification" and "simulation"
  std::string report;   // one line per check or run, for people
};

// Throws QueryError for what the scenario lacks (no application, unpriced GPUs, …) and for a
// request that makes no sense (headroom for the brute force, a check of no duration).
CostScenarioOutcome plan_cost_scenario(const Scenario& scenario, const CostScenarioRequest& request);

}  // namespace servescope::engine
