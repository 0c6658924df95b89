// A plan kept as JSON (a plan file, a project's plan, a live deployment's "apply plan" command)
// made ready to run: read by its kind and set on the spec with the data plane that runs that kind
// (the registry's first: reservation for pipeline plans, glet for glet plans) unless `system`
// names another that runs it. The CLI's `simulate --plan`, the GUI's Run tab and the live
// scheduler's plan switch all come through here.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/serving/simulation_spec.h"

namespace servescope::engine {

// Throws InputError naming `source` and the JSON path for a malformed plan, QueryError for a plan
// no data plane runs (a cost plan) or a `system` that does not run this kind.
void use_plan(SimulationSpec& spec, const nlohmann::json& plan, const std::string& source,
              const std::optional<std::string>& system = std::nullopt);

// Whether some data plane runs plans of this plan's kind (what the Run tab offers).
bool runs_on_a_data_plane(const nlohmann::json& plan);

}  // namespace servescope::engine
