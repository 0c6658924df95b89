// The files the engine writes besides the model's documents (docs/formats.md "Kinds"): a run
// (`simulate -o`, `live scheduler --record`), a load sweep (`sweep`), a timeline (`simulate
// --timeline`), a plan of any family (`plan -o`) and a goodput search (`goodput -o`). `validate`
// reads each in full with the readers that use it (a run's embedded timeline included), and
// `info` shows what it holds, so every file ServeScope writes can be checked by ServeScope.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace servescope::engine {

// The engine's kinds, in the order docs/formats.md lists them.
const std::vector<std::string>& engine_file_kinds();
bool is_engine_file_kind(std::string_view kind);

// Reads `json` (parsed from `location`) in full and returns a few figures of what it holds,
// {"kind", …}. Throws InputError naming `location` and the place of the first problem.
nlohmann::json summarize_engine_file(const nlohmann::json& json, const std::string& location);

}  // namespace servescope::engine
