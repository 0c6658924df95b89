// JSON forms of the domain types (docs/formats.md describes them with examples). Readers take a
// located cursor and throw InputError naming the file and the JSON path of the first problem;
// writers produce the same shapes, so load(save(x)) == x.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/io/json_cursor.h"
#include "model/scenario/scenario.h"

namespace servescope {

// Non-fatal findings while loading (e.g. a latency curve made monotone).
struct LoadReport {
  std::vector<std::string> warnings;
  void warn(const JsonCursor& where, const std::string& message) {
    warnings.push_back(where.file() + ": " + where.path() + ": " + message);
  }
};

// Loads the profile set an include names; `where` locates the include for error messages.
using IncludeResolver = std::function<ProfileSet(const std::string& ref, const JsonCursor& where)>;

// A GPU type entry; fields it leaves out keep `base`'s values (a scenario's entry for a built-in
// id, e.g. only a price for V100), else stay unknown.
GpuSpec gpu_spec_from_json(const JsonCursor& c, const GpuSpec* base = nullptr);
GpuCatalog gpu_catalog_from_json(const JsonCursor& root);  // a whole "gpu-catalog" document
GpuCatalog gpu_catalog_from_json_text(std::string_view text, const std::string& file);
Cluster cluster_from_json(const JsonCursor& c, bool document);
ModelProfile model_profile_from_json(const JsonCursor& c, LoadReport& report);
ProfileSet profile_set_from_json(const JsonCursor& root, LoadReport& report);  // "profiles" doc
Application application_from_json(const JsonCursor& c);
Workload workload_from_json(const JsonCursor& c);
Scenario scenario_from_json(const JsonCursor& c, bool document, const IncludeResolver& includes, LoadReport& report);
Project project_from_json(const JsonCursor& root, const IncludeResolver& includes, LoadReport& report);

nlohmann::json to_json(const GpuSpec& g);
nlohmann::json to_json(const GpuCatalog& c, const std::string& name);
nlohmann::json to_json(const Cluster& c, bool document);
nlohmann::json to_json(const ModelProfile& p);
nlohmann::json to_json(const ProfileSet& s);  // inline entries only (empty origin)
nlohmann::json to_json(const Application& a);
nlohmann::json to_json(const Workload& w);
nlohmann::json to_json(const Scenario& s, bool document);
nlohmann::json to_json(const Project& p);

// The inline "profiles", "utilisation", "interference" and "contention" lists of a scenario.
void read_inline_profiles(const JsonCursor& c, ProfileSet& set, LoadReport& report);
void write_inline_profiles(const ProfileSet& set, nlohmann::json& j, std::string_view models_key);

// A duration as a JSON number of microseconds: an integer when exact.
nlohmann::json us_to_json(Duration d);

}  // namespace servescope
