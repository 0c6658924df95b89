// What gpu-let's family takes beyond the common spec and request (seed 003): the glet plan its
// data plane runs, glet-serving's period and reorganisation time and the GPU type it splits, and
// the planner's partition sizes, best-fit and time-sharing rules and slack (§4.2–§4.5, digest
// §4.6–§4.11); with names, help and ranges for the CLI's flags and the GUI's forms.
#pragma once

#include <memory>
#include <string>

#include "engine/glet/glet_data_plane.h"
#include "engine/glet/glet_plan.h"
#include "engine/glet/glet_planner_options.h"
#include "engine/glet/glet_serving.h"
#include "engine/serving/option_schema.h"
#include "engine/serving/plan_request.h"
#include "engine/serving/simulation_spec.h"

namespace servescope::engine {

struct GletRunOptions {
  // The plan the glet data plane runs on glets of its GPU type; load factors are then relative
  // to the rate it carries. glet-serving plans and re-plans on its own every period instead.
  std::shared_ptr<const GletPlan> plan;
  GletDataPlaneOptions data_plane;
  GletServingOptions serving;
  GletPlannerOptions planner;  // glet-serving's
  std::string gpu;             // the GPU type glet-serving splits on a mixed cluster
};

OptionSchema<SimulationSpec> glet_simulation_options();
OptionSchema<ScenarioPlanRequest> glet_planner_options();

}  // namespace servescope::engine
