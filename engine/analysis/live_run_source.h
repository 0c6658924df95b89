// What simulating a kept live run again needs (README "The GUI", Prediction tab and "Calibrate
// from this run"; issue 46): the serving system it ran, or the project's plan of the system whose
// plan it served, its seed and latency quantile as the run recorded them, and the
// load it was really offered: its arrivals over the time between its first and last arrivals
// (the load generator's rate and length, not the scheduler's workload and lifetime, which
// includes the wait for the load to start), the warm-up counted from the load's start. The data
// plane's own options (a response delay, a controller) are not in the record: the caller's are
// used, and a note says so.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/serving/simulation_spec.h"
#include "model/scenario/scenario.h"

namespace servescope::engine {

struct LiveRunSource {
  SimulationSpec spec;             // system or plan, rate, seed, duration, warm-up, quantile
  std::string label;               // the system's name, or "plan NAME"
  std::vector<std::string> notes;  // what was chosen where the record leaves a choice
};

// Sets on `spec` what the live run `run` (a run-result document named `name`) was offered and
// how it planned: rate, length and warm-up of its load, seed, latency quantile. Batch times are
// drawn from the measured distributions, as `simulate` does by default: a record says "exact" for
// any run whose workers did not draw emulated times, real compute included.
// Throws QueryError naming the run when it was not recorded live or recorded no requests.
void use_recorded_load(SimulationSpec& spec, const nlohmann::json& run, const std::string& name);

// What the live scheduler's decisions cost, as its record measured them (`live scheduler
// --record` keeps the mean time from a triggering event to the batch order on its socket): one
// controller core charging that per event (controller_cost.h). On a machine whose cores the
// workers keep busy, the scheduler's timers fire late and heads are found unreachable that a
// free controller would have served; charged to every event on one core, though, the delay also
// queues events that really overlapped, so the live run lands between the free and the charged
// prediction. nullopt where the record has no such measurement (a run kept from the GUI's
// stream, or older records).
std::optional<ControllerCost> recorded_decision_cost(const nlohmann::json& run, const std::string& name);

// `preferred_plan` names the project's plan to use when several could have been served (the Run
// tab's choice); otherwise the first of the served system's. Throws QueryError naming the run when
// it was not recorded live, or when the project holds no plan of the system it served.
LiveRunSource live_run_source(const Project& project, const SavedArtifact& run, const std::string& preferred_plan = "");

}  // namespace servescope::engine
