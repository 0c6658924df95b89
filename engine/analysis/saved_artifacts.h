// The plans and runs a project keeps (its `plans[]` and `runs[]`, docs/formats.md) are stored as
// the JSON their writers produced, and a project file may come from anywhere. They are read in
// full when the project is opened or validated, by the same strict readers the views use, so a
// broken one is an InputError naming the file and its place ("$.runs[2].body.summary…") at open,
// never a library exception in a view later (docs/formats.md "Files from elsewhere").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/scenario/scenario.h"

namespace servescope::engine {

// Throws InputError naming `location` and the path inside it.
void check_saved_artifacts(const Project& project, const std::string& location);

// One run or load sweep, as a run file on its own (`simulate -o`) or imported into a project.
void check_saved_run(const nlohmann::json& body, const std::string& location);

}  // namespace servescope::engine
