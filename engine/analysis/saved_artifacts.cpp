#include "engine/analysis/saved_artifacts.h"

#include <functional>

#include "engine/analysis/run_headline.h"
#include "engine/analysis/run_series.h"
#include "engine/systems/scenario_planner.h"
#include "model/core/error.h"
#include "model/gpu/gpu_catalog.h"
#include "model/io/json_cursor.h"

namespace servescope::engine {
namespace {

// Runs a reader on one saved body and re-throws its complaint at the body's place in the file.
void check_body(const std::string& location, const std::string& where, const std::function<void()>& read) {
  try {
    read();
  } catch (const InputError& e) {
    const auto& inner = e.where();
    throw InputError(location, inner.starts_with("$") ? where + inner.substr(1) : where, e.reason());
  } catch (const QueryError& e) {
    throw InputError(location, where, e.what());
  }
}

}  // namespace

void check_saved_run(const nlohmann::json& body, const std::string& location) {
  const JsonCursor root(body, location);
  const auto kind = root.at("kind").as_string();
  if (kind == "run-result") {
    run_series(body, location);
    run_headline(body, GpuCatalog::builtin(), location);
    root.string_or("system", "");
  } else if (kind == "load-sweep") {
    attainment_vs_load(body, location);
    root.double_or("max_load_factor", 0, 0, 1e6);
  } else {
    root.at("kind").fail("expected a run (\"run-result\") or a load sweep (\"load-sweep\"), got '" + kind + "'");
  }
}

void check_saved_artifacts(const Project& project, const std::string& location) {
  for (std::size_t i = 0; i < project.plans.size(); ++i)
    check_body(location, "$.plans[" + std::to_string(i) + "].body",
               [&] { summarize_plan(project.plans[i].body, location); });
  for (std::size_t i = 0; i < project.runs.size(); ++i)
    check_body(location, "$.runs[" + std::to_string(i) + "].body",
               [&] { check_saved_run(project.runs[i].body, location); });
}

}  // namespace servescope::engine
