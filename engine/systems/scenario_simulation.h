// Runs a scenario's workload through one serving system: prepare_serving builds the common setup
// (engine/serving/simulation_setup.h), has the system's family place and build its data plane
// (engine/serving/serving_system.h, found in the registry), scales the streams to the offered
// rate and describes the layout; simulate runs that in the discrete-event simulator and returns
// the aggregates. The CLI's `simulate` and `goodput`, the GUI, the live scheduler and the
// reproduction programs all come through here.
#pragma once

#include <functional>

#include "engine/serving/prepared_serving.h"
#include "engine/serving/simulation_result.h"
#include "engine/serving/simulation_setup.h"
#include "engine/serving/simulation_spec.h"
#include "engine/systems/symphony/symphony_system.h"
#include "engine/systems/system_registry.h"
#include "model/scenario/scenario.h"

namespace servescope::engine {

// The common setup for spec.system, whose traits the registry holds; QueryError naming the known
// systems for an unknown one (a misspelt name is the problem to report, not what it cannot serve).
SimulationSetup prepare_simulation(const Scenario& scenario, const SimulationSpec& spec);

PreparedServing prepare_serving(const Scenario& scenario, const SimulationSpec& spec);

// The workloads of the scenario spec.system can serve: those sending to models, or to
// applications too where the data plane runs DAGs, and only to what its plan planned.
std::vector<std::string> runnable_workloads(const Scenario& scenario, const SimulationSpec& spec);

SimulationResult simulate(const Scenario& scenario, const SimulationSpec& spec,
                          const std::function<void(double fraction)>& progress = {});

}  // namespace servescope::engine
