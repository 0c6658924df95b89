// A plan as a project or a file keeps it, read by its "kind" through one reader: a pooled-pipeline
// plan (seed 000), a gpu-let plan (seed 003) or a cost plan's record (seeds 001 and 004). The GUI
// shows plans from these types, never from their JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "engine/cost/cost_plan_record.h"
#include "engine/glet/glet_plan.h"
#include "engine/ppipe/pipeline_plan.h"

namespace servescope::engine {

using StoredPlan = std::variant<PipelinePlan, GletPlan, CostPlanRecord>;

// Throws InputError naming `file` and the JSON path for a malformed plan or an unknown kind.
StoredPlan read_plan(const nlohmann::json& plan, const std::string& file);

}  // namespace servescope::engine
