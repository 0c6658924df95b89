// What the cost planners take beyond the common request (seeds 001 and 004): the application,
// GPU prices and types, batch sizes, burst headroom and the simulator's check; with names, help
// and ranges for the CLI's flags and the GUI's forms. A run of a kept cost plan takes the plan.
#pragma once

#include <memory>

#include "engine/cost/cost_plan_record.h"
#include "engine/serving/option_schema.h"
#include "engine/serving/plan_request.h"

namespace servescope::engine {

struct CostRunOptions {
  std::shared_ptr<const CostPlanRecord> plan;  // made runnable against the run's scenario
};

OptionSchema<ScenarioPlanRequest> cost_planner_options();

}  // namespace servescope::engine
