// A cost-planning problem from a scenario (Piccolo seed 001 §1.1): one application, the rate the
// workloads send it, its SLO, and per DNN module every ⟨batch, concurrency, GPU type⟩ its profile
// answers for, priced from the GPU catalog (price_per_hour) or overrides. Concurrency s is s
// MPS shares of 1/s on one GPU (Piccolo digest gap G11: t = s·b/d).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/cost/cost_problem.h"
#include "model/scenario/scenario.h"

namespace servescope::engine {

struct CostScenarioOptions {
  std::string application;               // empty: the one application the workloads target
  std::vector<std::string> workloads;    // empty: all
  std::map<std::string, double> prices;  // GPU type → price, over the catalog's
  std::vector<std::string> gpus;         // allowed GPU types; empty: every priced one
  // Batch sizes to plan, within each profile's range. Empty: 1, 2, 4, …, 64 and every size the
  // profile measured (users profile the sizes they care about; docs/formats.md "Cost plans").
  std::vector<int> batches;
  int max_concurrency = 4;
};

// Throws QueryError naming what is missing (no application targeted, a model without a profile,
// no priced GPU type).
CostProblem cost_problem_from_scenario(const Scenario& scenario, const CostScenarioOptions& options = {});

// The batch sizes the cost planners consider for a profile that measured `profiled`: those asked
// for, or by default 1, 2, 4, …, 64 and every measured size.
std::vector<int> planned_batches(const CostScenarioOptions& options, std::vector<int> profiled);

// The arrival process of the first selected workload that targets the application.
ArrivalProcess application_arrivals(const Scenario& scenario, const CostScenarioOptions& options);

}  // namespace servescope::engine
