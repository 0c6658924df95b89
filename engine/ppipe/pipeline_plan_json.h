// The JSON of a pooled-pipeline plan (`kind: pipeline-plan`, docs/formats.md): what
// `servescope-cli plan` writes and `sweep` and the GUI read back. Reading validates every
// field and names the place of any problem.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/ppipe/pipeline_plan.h"

namespace servescope::engine {

nlohmann::json pipeline_plan_to_json(const PipelinePlan& plan, const std::string& scenario_name);
// Throws InputError naming `file` and the JSON path.
PipelinePlan pipeline_plan_from_json(const nlohmann::json& json, const std::string& file);
PipelinePlan load_pipeline_plan(const std::string& path);

}  // namespace servescope::engine
