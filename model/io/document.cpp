#include "model/io/document.h"

#include <algorithm>

#include "model/core/error.h"
#include "model/io/file_io.h"
#include "model/io/model_json.h"
#include "model/io/trace_file.h"
#include "resources/builtin_resources.h"

namespace servescope {
namespace fs = std::filesystem;

namespace {

// Only scenarios and projects include files (profiles), so a legitimate chain is two long.
constexpr std::size_t kMaxIncludeDepth = 8;

bool is_builtin(std::string_view location) {
  return location.starts_with(kBuiltinPrefix);
}

std::string read_location(const std::string& location) {
  if (is_builtin(location)) {
    const auto name = location.substr(kBuiltinPrefix.size());
    if (auto text = resources::find_builtin_resource(name)) return std::string(*text);
    std::string known;
    for (const auto& r : resources::all_builtin_resources())
      known += (known.empty() ? "" : ", ") + std::string(r.name);
    throw InputError(location, "", "no such built-in resource (built in: " + known + ")");
  }
  return read_text_file(location);
}

// Includes are "builtin:" references or paths relative to the including file. Built-in files
// spell out "builtin:" so that a copy saved elsewhere still finds them.
std::string resolve_include(const std::string& base, const std::string& ref, const JsonCursor& where) {
  if (is_builtin(ref)) return ref;
  if (is_builtin(base)) where.fail("a built-in file can only include \"builtin:\" references");
  const fs::path p(ref);
  if (p.is_absolute()) return ref;
  return (fs::path(base).parent_path() / p).lexically_normal().string();
}

Document parse_document_in(std::string_view text, const std::string& location, const std::vector<std::string>& chain);
Document document_from_json_in(const nlohmann::json& json, const std::string& location,
                               const std::vector<std::string>& chain);

// The name a location is compared by when looking for include cycles: the same file reached
// through "./", "../x/" or a symlink is the same file.
std::string identity_of(const std::string& location) {
  if (is_builtin(location)) return location;
  std::error_code ec;
  const auto canonical = fs::weakly_canonical(fs::path(location), ec);
  return ec ? fs::path(location).lexically_normal().string() : canonical.string();
}

// `chain` is the files being read, outermost first, so that a file that includes itself, or
// a → b → a, is named instead of recursing until the stack runs out.
IncludeResolver resolver_for(const std::string& base, LoadReport& report, const std::vector<std::string>& chain) {
  return [base, &report, chain](const std::string& ref, const JsonCursor& where) -> ProfileSet {
    const auto target = resolve_include(base, ref, where);
    const auto id = identity_of(target);
    if (std::ranges::find(chain, id) != chain.end()) {
      std::string cycle;
      for (const auto& file : chain)
        cycle += file + " → ";
      where.fail("cannot include '" + ref + "': the includes form a cycle: " + cycle + id);
    }
    if (chain.size() >= kMaxIncludeDepth)
      where.fail("cannot include '" + ref + "': includes nest deeper than " + std::to_string(kMaxIncludeDepth) +
                 " files");
    Document doc;
    try {
      auto inner = chain;
      inner.push_back(id);
      doc = parse_document_in(read_location(target), target, inner);
    } catch (const InputError& e) {
      // The included file's own location is in e.what(); say who included it.
      where.fail("cannot include '" + ref + "': " + e.what());
    }
    if (doc.kind != DocumentKind::Profiles)
      where.fail("'" + ref + "' is a " + std::string(to_string(doc.kind)) + " file; only profiles can be included");
    for (auto& w : doc.warnings)
      report.warnings.push_back(std::move(w));
    return std::get<ProfileSet>(std::move(doc.content));
  };
}

const std::string& expect_kind(const Document& doc, DocumentKind kind, const std::string& location) {
  static const std::string empty;
  if (doc.kind != kind)
    throw InputError(
        location, "$.kind",
        "expected a " + std::string(to_string(kind)) + " file, got a " + std::string(to_string(doc.kind)) + " file");
  return empty;
}

void append_warnings(const Document& doc, std::vector<std::string>* out) {
  if (out) out->insert(out->end(), doc.warnings.begin(), doc.warnings.end());
}

// Trace files are read when the scenario is, so a missing or broken trace is reported by
// `validate` and on open, not halfway through a simulation.
void check_traces(const Scenario& s, const std::string& location, const std::string& root) {
  for (std::size_t i = 0; i < s.workloads.size(); ++i) {
    const auto* trace = std::get_if<TraceArrivals>(&s.workloads[i].arrivals);
    if (!trace) continue;
    const auto where = root + ".workloads[" + std::to_string(i) + "].arrival.path";
    if (is_builtin(location)) throw InputError(location, where, "built-in files cannot refer to trace files");
    const fs::path p(trace->path);
    const auto target = p.is_absolute() ? p : fs::path(location).parent_path() / p;
    try {
      load_trace_file(target.string());
    } catch (const InputError& e) {
      throw InputError(location, where, "cannot use trace '" + trace->path + "': " + e.what());
    }
  }
}

}  // namespace

std::string_view to_string(DocumentKind kind) {
  switch (kind) {
    case DocumentKind::GpuCatalog:
      return "gpu-catalog";
    case DocumentKind::Cluster:
      return "cluster";
    case DocumentKind::Profiles:
      return "profiles";
    case DocumentKind::Scenario:
      return "scenario";
    case DocumentKind::Project:
      return "project";
  }
  return "?";
}

Document parse_document(std::string_view text, const std::string& location) {
  return parse_document_in(text, location, {identity_of(location)});
}

Document document_from_json(const nlohmann::json& json, const std::string& location) {
  return document_from_json_in(json, location, {identity_of(location)});
}

std::string read_document_text(const std::string& location) {
  return read_location(location);
}

namespace {

Document document_from_json_in(const nlohmann::json& json, const std::string& location,
                               const std::vector<std::string>& chain) {
  const JsonCursor root(json, location);
  if (!json.is_object()) root.fail("expected a JSON object at the top level, got " + describe_json(json));
  const auto kind = root.at("kind").as_string();
  LoadReport report;
  Document doc;
  if (kind == "gpu-catalog") {
    doc.kind = DocumentKind::GpuCatalog;
    doc.content = gpu_catalog_from_json(root);
  } else if (kind == "cluster") {
    doc.kind = DocumentKind::Cluster;
    doc.content = cluster_from_json(root, true);
  } else if (kind == "profiles") {
    doc.kind = DocumentKind::Profiles;
    doc.content = profile_set_from_json(root, report);
  } else if (kind == "scenario") {
    doc.kind = DocumentKind::Scenario;
    auto scenario = scenario_from_json(root, true, resolver_for(location, report, chain), report);
    check_traces(scenario, location, "$");
    doc.content = std::move(scenario);
  } else if (kind == "project") {
    doc.kind = DocumentKind::Project;
    auto project = project_from_json(root, resolver_for(location, report, chain), report);
    check_traces(project.scenario, location, "$.scenario");
    doc.content = std::move(project);
  } else {
    root.at("kind").fail("unknown kind '" + kind + "' (expected gpu-catalog, cluster, profiles, scenario or project)");
  }
  doc.warnings = std::move(report.warnings);
  return doc;
}

Document parse_document_in(std::string_view text, const std::string& location, const std::vector<std::string>& chain) {
  return document_from_json_in(parse_json_text(text, location), location, chain);
}

}  // namespace

Document load_document(const std::string& location) {
  return parse_document(read_location(location), location);
}

Project load_project(const std::string& location, std::vector<std::string>* warnings) {
  auto doc = load_document(location);
  expect_kind(doc, DocumentKind::Project, location);
  append_warnings(doc, warnings);
  return std::get<Project>(std::move(doc.content));
}

Scenario load_scenario(const std::string& location, std::vector<std::string>* warnings) {
  auto doc = load_document(location);
  expect_kind(doc, DocumentKind::Scenario, location);
  append_warnings(doc, warnings);
  return std::get<Scenario>(std::move(doc.content));
}

ProfileSet load_profiles(const std::string& location, std::vector<std::string>* warnings) {
  auto doc = load_document(location);
  expect_kind(doc, DocumentKind::Profiles, location);
  append_warnings(doc, warnings);
  return std::get<ProfileSet>(std::move(doc.content));
}

Project project_from_document(Document doc, const std::string& location) {
  if (doc.kind == DocumentKind::Project) return std::get<Project>(std::move(doc.content));
  if (doc.kind == DocumentKind::Scenario) {
    Project p;
    p.scenario = std::get<Scenario>(std::move(doc.content));
    p.name = p.scenario.name;
    return p;
  }
  throw InputError(
      location, "$.kind",
      "a " + std::string(to_string(doc.kind)) + " file cannot be opened as a project; open a project or a scenario");
}

ProfileSet profiles_in(const std::string& location) {
  auto doc = load_document(location);
  if (auto* set = std::get_if<ProfileSet>(&doc.content)) return std::move(*set);
  return project_from_document(std::move(doc), location).scenario.profiles;
}

namespace {

// The folder a location's relative includes are read from: an untitled project ("") reads them
// from the working directory, as resolve_include does.
fs::path include_folder(const std::string& location) {
  const fs::path file(location);
  return fs::absolute(file.has_parent_path() ? file.parent_path() : fs::path(".")).lexically_normal();
}

}  // namespace

void rebase_profile_includes(Scenario& scenario, const std::string& from_location, const fs::path& to) {
  if (is_builtin(from_location)) return;
  fs::path from_dir, to_dir;
  try {
    from_dir = include_folder(from_location);
    to_dir = include_folder(to.string());
  } catch (const fs::filesystem_error& e) {
    throw Error(to.string() + ": cannot place the project's profile includes: " + e.code().message());
  }
  if (from_dir == to_dir) return;
  for (auto& ref : scenario.profile_includes) {
    if (is_builtin(ref) || fs::path(ref).is_absolute()) continue;
    const auto moved = (from_dir / ref).lexically_normal().lexically_relative(to_dir).string();
    for (auto& m : scenario.profiles.models)
      if (m.origin == ref) m.origin = moved;
    for (auto& u : scenario.profiles.utilisation)
      if (u.origin == ref) u.origin = moved;
    for (auto& i : scenario.profiles.interference)
      if (i.origin == ref) i.origin = moved;
    ref = moved;
  }
}

void save_json_file(const fs::path& path, const nlohmann::json& json) {
  write_output_file(path, json.dump(2) + "\n");
}

void save_project(const fs::path& path, const Project& project) {
  save_json_file(path, to_json(project));
}

void save_scenario(const fs::path& path, const Scenario& scenario) {
  save_json_file(path, to_json(scenario, true));
}

void save_profiles(const fs::path& path, const ProfileSet& profiles) {
  save_json_file(path, to_json(profiles));
}

}  // namespace servescope
