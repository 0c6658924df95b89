// What the pipeline planners need from a scenario: the cluster's GPU types and, for the
// selected workloads, each targeted model with its SLO (the tightest a target asks for) and its
// share of the requests (the weight of the max-min objective).
#pragma once

#include <string>
#include <vector>

#include "engine/ppipe/ppipe_planner.h"
#include "model/scenario/scenario.h"

namespace servescope::engine {

struct PlanningInput {
  std::vector<PlannerModel> models;  // profiles point into the scenario
  std::vector<PlannerGpuType> gpus;
  std::vector<double> rate_rps;  // per model, as the workloads ask
};

// Throws QueryError for targets without an SLO, an empty cluster, and application targets unless
// `expand_applications`: then each DNN module's model gets the application's rate and its share
// of the SLO (module_model_slos, costed on the cluster's first GPU type).
PlanningInput planning_input(const Scenario& scenario, const std::vector<std::string>& workloads,
                             bool expand_applications = false);

// Runs the named planner: "ppipe", "np" or "dart-r".
PipelinePlan plan_pipelines(const std::string& system, const PlanningInput& input, const PpipeOptions& options);
std::vector<std::string> pipeline_planners();

}  // namespace servescope::engine
