// What the cost planners take beyond the common request (seeds 001 and 004): the application,
// GPU prices and types, batch sizes, burst headroom and the simulator's check; with names, help
// and ranges for the CLI's flags and the GUI's forms.
#pragma once

#include "engine/serving/option_schema.h"
#include "engine/serving/plan_request.h"

namespace servescope::engine {

OptionSchema<ScenarioPlanRequest> cost_planner_options();

}  // namespace servescope::engine
