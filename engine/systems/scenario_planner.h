// One entry point for "plan this scenario with system X" (heaptrack's lesson, docs gui-anchors
// §0: one Qt-free library behind the CLI and the GUI). The request and result types are the
// families' common ones (engine/serving/plan_request.h); the planner is the registry's.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/serving/plan_request.h"
#include "engine/systems/system_registry.h"
#include "model/scenario/scenario.h"

namespace servescope::engine {

// Throws QueryError naming what the scenario lacks for that system.
ScenarioPlanResult plan_scenario(const Scenario& scenario, const ScenarioPlanRequest& request);

// The comparison figures of a plan kept in a project (any family's kind), read as strictly as the
// plan is loaded: a malformed plan throws InputError naming `file` and the JSON path.
PlanSummary summarize_plan(const nlohmann::json& plan, const std::string& file = "plan");

}  // namespace servescope::engine
