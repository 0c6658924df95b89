// What `calibrate` found, said for people and for programs (`servescope-cli calibrate`, its
// --json, and the GUI's Prediction tab): how far each entry's median and p99 moved and on how many
// batches, each device type's contention between two slots, and what could not be calibrated.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "engine/analysis/calibration.h"

namespace servescope::engine {

void write_calibration_report(std::ostream& out, const Calibration& calibration, const std::string& run_name);
nlohmann::json calibration_to_json(const Calibration& calibration);

}  // namespace servescope::engine
