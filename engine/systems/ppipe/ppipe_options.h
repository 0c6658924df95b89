// What PPipe's family takes beyond the common spec and request (seed 000): the pipeline plan a
// data plane runs with its reservation and reactive rules (§4.6 and the artifact's variants),
// and the planners' MILP and search space (§4.3–§4.5); with names, help and ranges for the
// CLI's flags and the GUI's forms.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/ppipe/network_layout.h"
#include "engine/ppipe/pipeline_plan.h"
#include "engine/ppipe/reactive_pool_scheduler.h"
#include "engine/ppipe/reservation_scheduler.h"
#include "engine/serving/option_schema.h"
#include "engine/serving/plan_request.h"
#include "engine/serving/simulation_spec.h"

namespace servescope::engine {

struct PipelineRunOptions {
  // The plan the data plane runs; load factors are then relative to its throughput.
  std::shared_ptr<const PipelinePlan> plan;
  ReservationSchedulerOptions reservation;
  ReactiveSchedulerOptions reactive;
  // Which NICs transfers hold: the servers' or the artifact's per-pipeline links.
  NetworkLayout network = NetworkLayout::PerServer;
  // Where a plan's GPUs go: by NIC load, or in cluster order as the artifact places them.
  GpuPlacementRule placement = GpuPlacementRule::NicLoad;
};

OptionSchema<SimulationSpec> pipeline_simulation_options();

// The PPipe artifact's cluster-sim as options of the reservation plane (issue 49;
// docs/reproduction/ppipe.md, "Against the artifact's simulator"), as a command line spells
// them ("" for a flag): --reservations horizon --wake artifact --first-look 0.95 --network
// artifact --behind-min-batch 0 --no-feedback --placement cluster-order (the uplink-aware pick is
// the default).
const std::vector<std::pair<std::string, std::string>>& artifact_simulator_options();
// Writes options spelled so (name, text; "" for a flag) into `spec` through the family's option
// schema; throws QueryError for a name it lacks or a value its check refuses.
void apply_pipeline_options(SimulationSpec& spec, const std::vector<std::pair<std::string, std::string>>& options);
inline void apply_artifact_simulator_options(SimulationSpec& spec) {
  apply_pipeline_options(spec, artifact_simulator_options());
}
OptionSchema<ScenarioPlanRequest> pipeline_planner_options();

}  // namespace servescope::engine
