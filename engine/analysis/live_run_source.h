// What simulating a kept live run again needs (README "The GUI", Prediction tab and "Calibrate
// from this run"; issue 46): the serving system it ran, or the project's plan of the system whose
// plan it served, its seed and latency quantile as the run recorded them, and the
// load it was really offered: its arrivals over the time between its first and last arrivals
// (the load generator's rate and length, not the scheduler's workload and lifetime, which
// includes the wait for the load to start), the warm-up counted from the load's start, and how
// late its scheduler's decisions were (decision_record.h), drawn per event as the controller's
// lateness. The data plane's own options (a response delay) are not in the record: the caller's
// are used, and a note says so.
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

// `preferred_plan` names the project's plan to use when several could have been served (the Run
// tab's choice); otherwise the first of the served system's. Throws QueryError naming the run when
// it was not recorded live, or when the project holds no plan of the system it served.
LiveRunSource live_run_source(const Project& project, const SavedArtifact& run, const std::string& preferred_plan = "");

}  // namespace servescope::engine
