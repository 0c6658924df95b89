// How a cost plan is laid out for the simulator (Piccolo seed 001 §4, Harpagon seed 004 §3):
// application requests arrive as model 0 and fan out through the DAG, module m's requests are
// model m + 1 (each module receives its planned rate as copies per application request), and a
// batch takes the duration of the configuration it runs as, whatever its fill. The cost
// planners' own check (cost_simulation.h) and the serving seam's cost data plane
// (engine/systems/cost/) lay plans out the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/cost/cost_plan.h"
#include "engine/dataplane/app_fanout.h"
#include "engine/dataplane/batch_latency.h"

namespace servescope::engine {

struct CostServing {
  double app_rate_rps = 0;                                      // the application requests the plan serves per second
  AppGraph graph;                                               // request_model 0
  std::vector<std::uint32_t> module_model;                      // m + 1
  std::vector<std::vector<std::vector<BatchLatency>>> latency;  // per model, per configuration (kernel)
};

// Throws QueryError for an infeasible plan or a DNN module on no machine.
CostServing cost_serving(const CostPlan& plan);

}  // namespace servescope::engine
