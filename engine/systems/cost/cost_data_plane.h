// The "cost" data plane: a kept cost plan (Piccolo seed 001, Harpagon seed 004) served in the
// common seam like every other system, so it runs from `simulate --plan`, the Run tab and a
// load sweep, and leaves a SimulationResult and a timeline. Its slots are the plan's machines
// (one per concurrency slot, named module/tier/machine), its models the application and one per
// module, and the frontend is the CostDispatcher behind the application fan-out.
#pragma once

#include "engine/serving/prepared_serving.h"
#include "engine/serving/simulation_spec.h"
#include "model/scenario/scenario.h"

namespace servescope::engine {

void place_cost_plan(const Scenario& scenario, const SimulationSpec& spec, PreparedServing& prepared);
void build_cost_plane(PreparedServing& prepared);

}  // namespace servescope::engine
