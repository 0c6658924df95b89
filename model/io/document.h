// Opening and saving ServeScope files of any kind. A file names its kind in its header
// ("gpu-catalog", "cluster", "profiles", "scenario", "project"); `load_document` reads the kind
// and dispatches, resolving profile includes relative to the file (or from the built-in
// resources for "builtin:" references), so `servescope-cli validate` and the GUI accept and
// reject exactly the same files.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/scenario/scenario.h"

namespace servescope {

enum class DocumentKind { GpuCatalog, Cluster, Profiles, Scenario, Project };
std::string_view to_string(DocumentKind kind);

struct Document {
  DocumentKind kind = DocumentKind::Project;
  std::variant<GpuCatalog, Cluster, ProfileSet, Scenario, Project> content;
  std::vector<std::string> warnings;
};

inline constexpr std::string_view kBuiltinPrefix = "builtin:";

// `location` is a file path or "builtin:NAME" (e.g. "builtin:projects/demo.json").
// Throws InputError naming the file, the place in it and the reason.
Document load_document(const std::string& location);
Document parse_document(std::string_view text, const std::string& location);
// The same from JSON already parsed (by parse_json_text) from `location`: a reader that looks at
// the kind first (`validate` and `info`, which also read the engine's files) parses once.
Document document_from_json(const nlohmann::json& json, const std::string& location);
// A location's text, bounded as every input is (a file, or a built-in resource).
std::string read_document_text(const std::string& location);

// Typed shorthands that also reject a file of another kind.
Project load_project(const std::string& location, std::vector<std::string>* warnings = nullptr);
Scenario load_scenario(const std::string& location, std::vector<std::string>* warnings = nullptr);
ProfileSet load_profiles(const std::string& location, std::vector<std::string>* warnings = nullptr);

// Atomic saves (temporary file + rename), pretty-printed with a trailing newline.
void save_json_file(const std::filesystem::path& path, const nlohmann::json& json);
void save_project(const std::filesystem::path& path, const Project& project);
void save_scenario(const std::filesystem::path& path, const Scenario& scenario);
void save_profiles(const std::filesystem::path& path, const ProfileSet& profiles);

// Rewrites relative profile includes read from `from_location` so they still point at the
// same files from `to` ("Save As" into another folder).
void rebase_profile_includes(Scenario& scenario, const std::string& from_location, const std::filesystem::path& to);

// A project around a scenario document, so the GUI can open either kind.
Project project_from_document(Document doc, const std::string& location);

// The profiles a profiles, scenario or project file holds (InputError for another kind).
ProfileSet profiles_in(const std::string& location);

}  // namespace servescope
