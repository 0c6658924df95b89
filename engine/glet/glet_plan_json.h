// The JSON of a gpu-let plan (`kind: glet-plan`, docs/formats.md): what `servescope-cli plan
// --system glet|…` writes and `simulate --plan` reads back; per GPU its glets with size, mode,
// duty cycle and occupancy, and per glet the models with batch, rate, latency and slowdown.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/glet/elastic_partitioning.h"

namespace servescope::engine {

nlohmann::json glet_plan_to_json(const GletPlan& plan, const std::string& scenario_name);
// Throws InputError naming `file` and the JSON path of the first problem.
GletPlan glet_plan_from_json(const nlohmann::json& json, const std::string& file);
GletPlan load_glet_plan(const std::string& path);

}  // namespace servescope::engine
