#include "engine/analysis/saved_artifacts.h"

#include <functional>
#include <limits>
#include <map>

#include "engine/analysis/run_headline.h"
#include "engine/analysis/run_series.h"
#include "engine/dataplane/run_layout.h"
#include "engine/serving/cluster_gpus.h"
#include "engine/systems/scenario_planner.h"
#include "engine/systems/system_registry.h"
#include "engine/timeline/timeline_data.h"
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

void check_saved_run(const nlohmann::json& body, const std::string& location, ArtifactDepth depth) {
  const JsonCursor root(body, location);
  const auto kind = root.at("kind").as_string();
  if (kind == "run-result") {
    run_series(body, location);
    run_headline(body, GpuCatalog::builtin(), location);
    run_system(body, location);
    if (depth == ArtifactDepth::Everything)
      if (const auto timeline = root.find("timeline")) timeline_from_json(*timeline);
  } else if (kind == "load-sweep") {
    attainment_vs_load(body, location);
    sweep_max_load_factor(body, location);
  } else {
    root.at("kind").fail("expected a run (\"run-result\") or a load sweep (\"load-sweep\"), got '" + kind + "'");
  }
}

ArtifactKind artifact_kind(const nlohmann::json& body) {
  const auto kind = body.is_object() ? body.find("kind") : body.end();
  if (!body.is_object() || kind == body.end() || !kind->is_string()) return ArtifactKind::Other;
  const auto& k = kind->get_ref<const std::string&>();
  if (k == "pipeline-plan") return ArtifactKind::PipelinePlan;
  if (k == "glet-plan") return ArtifactKind::GletPlan;
  if (k == "cost-plan") return ArtifactKind::CostPlan;
  if (k == "run-result") return ArtifactKind::RunResult;
  if (k == "load-sweep") return ArtifactKind::LoadSweep;
  return ArtifactKind::Other;
}

std::string run_system(const nlohmann::json& body, const std::string& location) {
  return JsonCursor(body, location).string_or("system", "");
}

std::string run_cluster_mismatch(const nlohmann::json& body, const std::string& location, const Cluster& cluster) {
  const JsonCursor run(body, location);
  const auto gpus = run.find("gpus");
  if (!gpus) return {};  // a run that names no GPUs draws none
  // A cost plan's run serves on machines the plan rents, not on the cluster's GPUs.
  try {
    if (data_plane_traits(run.string_or("system", "")).runs == PlanKind::Cost) return {};
  } catch (const QueryError&) {
    // A system this build does not know: its GPUs are checked like any other's.
  }
  RunLayout layout;
  const auto names = gpus->at("names");
  for (std::size_t g = 0; g < names.size(); ++g)
    layout.gpus.push_back(names[g].as_string());
  if (const auto types = gpus->find("types"))
    for (std::size_t g = 0; g < types->size(); ++g)
      layout.gpu_types.push_back((*types)[g].as_string(true));
  if (const auto physical = gpus->find("physical"))
    for (std::size_t g = 0; g < physical->size(); ++g)
      layout.gpu_physical.push_back(
          static_cast<std::uint32_t>((*physical)[g].as_int(0, std::numeric_limits<std::uint32_t>::max())));
  else
    for (std::uint32_t g = 0; g < layout.gpus.size(); ++g)
      layout.gpu_physical.push_back(g);
  std::map<std::string, std::string> type_of;
  for (const auto& g : cluster_gpus(cluster).gpus)
    type_of.emplace(g.name, g.gpu_type);
  const auto physical_names = layout.physical_gpu_names();
  for (std::size_t g = 0; g < layout.gpus.size() && g < layout.gpu_physical.size(); ++g) {
    const auto& name = physical_names[layout.gpu_physical[g]];
    const auto type = g < layout.gpu_types.size() ? layout.gpu_types[g] : std::string();
    const auto it = type_of.find(name);
    const auto scenario = run.string_or("scenario", "");
    const auto where = scenario.empty() ? std::string("the run") : "the run of scenario '" + scenario + "'";
    if (it == type_of.end())
      return where + " ran on " + name + (type.empty() ? "" : " (" + type + ")") + ", which cluster '" + cluster.name +
             "' does not have";
    if (!type.empty() && it->second != type)
      return where + " ran on " + name + " as a " + type + ", which is a " + it->second + " in cluster '" +
             cluster.name + "'";
  }
  return {};
}

Duration run_warmup(const nlohmann::json& body, const std::string& location) {
  const JsonCursor run(body, location);
  const auto config = run.find("config");
  return config ? Duration::from_s(config->double_or("warmup_s", 0, 0, 1e6)) : Duration();
}

double sweep_max_load_factor(const nlohmann::json& body, const std::string& location) {
  return JsonCursor(body, location).double_or("max_load_factor", 0, 0, 1e6);
}

void check_saved_artifacts(const Project& project, const std::string& location, ArtifactDepth depth) {
  for (std::size_t i = 0; i < project.plans.size(); ++i)
    check_body(location, "$.plans[" + std::to_string(i) + "].body",
               [&] { summarize_plan(project.plans[i].body, location); });
  for (std::size_t i = 0; i < project.runs.size(); ++i)
    check_body(location, "$.runs[" + std::to_string(i) + "].body",
               [&] { check_saved_run(project.runs[i].body, location, depth); });
}

}  // namespace servescope::engine
