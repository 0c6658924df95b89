// Calibrating a scenario's profiles from a recorded run of it (issue 46; `servescope-cli
// calibrate`, the GUI's "Calibrate from this run"): the run's slots matched to where the scenario,
// system and plan it ran place them, so that each pipeline stage's batches calibrate its own
// blocks, then calibrate() (engine/analysis/calibration.h).
#pragma once

#include "engine/analysis/calibration.h"
#include "engine/serving/simulation_spec.h"
#include "model/scenario/scenario.h"

namespace servescope::engine {

// `spec` names the system, plan and workloads the run served, as for `simulate`. Throws
// QueryError when the run's slots are not those the scenario and plan place (naming the first
// that differs), or as calibrate() does.
Calibration calibrate_run(const Scenario& scenario, const SimulationSpec& spec, const TimelineData& run,
                          const CalibrationOptions& options = {});

}  // namespace servescope::engine
