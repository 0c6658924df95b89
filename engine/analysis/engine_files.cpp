#include "engine/analysis/engine_files.h"

#include <algorithm>

#include "engine/analysis/run_headline.h"
#include "engine/analysis/run_series.h"
#include "engine/analysis/saved_artifacts.h"
#include "engine/systems/scenario_planner.h"
#include "engine/timeline/timeline_data.h"
#include "model/core/error.h"
#include "model/gpu/gpu_catalog.h"
#include "model/io/json_cursor.h"

namespace servescope::engine {
namespace {

nlohmann::json timeline_summary(const TimelineData& t) {
  return {{"system", t.system},        {"slots", t.gpus.size()},        {"models", t.models.size()},
          {"batches", t.spans.size()}, {"requests", t.request_count()}, {"transfers", t.transfers.size()},
          {"drops", t.drops.size()}};
}

}  // namespace

const std::vector<std::string>& engine_file_kinds() {
  static const std::vector<std::string> kinds = {"run-result", "load-sweep", "timeline",      "pipeline-plan",
                                                 "glet-plan",  "cost-plan",  "goodput-search"};
  return kinds;
}

bool is_engine_file_kind(std::string_view kind) {
  return std::ranges::find(engine_file_kinds(), kind) != engine_file_kinds().end();
}

nlohmann::json summarize_engine_file(const nlohmann::json& json, const std::string& location) {
  const JsonCursor root(json, location);
  if (!json.is_object()) root.fail("expected a JSON object at the top level, got " + describe_json(json));
  const auto kind = root.at("kind").as_string();
  nlohmann::json out = {{"kind", kind}};
  if (kind == "run-result" || kind == "load-sweep") {
    check_saved_run(json, location, ArtifactDepth::Everything);
    if (kind == "run-result") {
      const auto headline = run_headline(json, GpuCatalog::builtin(), location);
      out["system"] = headline.system;
      out["arrivals"] = headline.summary.arrivals;
      out["slo_attainment"] = headline.summary.slo_attainment;
      out["p99_ms"] = headline.summary.p99.to_ms();
      out["gpus_used"] = headline.summary.gpus_used;
      out["timeline"] = json.contains("timeline");
    } else {
      out["max_load_factor"] = sweep_max_load_factor(json, location);
    }
  } else if (kind == "timeline") {
    out.update(timeline_summary(timeline_from_json(root)));
  } else if (kind == "pipeline-plan" || kind == "glet-plan" || kind == "cost-plan") {
    try {
      const auto plan = summarize_plan(json, location);
      out["system"] = plan.system;
      out["feasible"] = plan.feasible;
      out["throughput_rps"] = plan.throughput_rps;
      out["gpus"] = plan.gpus;
      if (kind == "cost-plan") out["cost"] = plan.cost;
      out["note"] = plan.note;
    } catch (const QueryError& e) {
      throw InputError(location, "", e.what());
    }
  } else if (kind == "goodput-search") {
    out["system"] = root.at("system").as_string();
    out["goodput_rps"] = root.at("goodput_rps").as_double(0, 1e12);
    out["max_rate_at_99_attainment_rps"] = root.at("max_rate_at_99_attainment_rps").as_double(0, 1e12);
    const auto probes = root.at("probes");
    for (std::size_t i = 0; i < probes.size(); ++i) {
      const auto p = probes.element(i);
      p.at("rate_rps").as_double(0, 1e12);
      p.at("slo_attainment").as_double(0, 1);
    }
    out["probes"] = probes.size();
  } else {
    root.at("kind").fail("'" + kind + "' is not a kind of file the engine writes");
  }
  return out;
}

}  // namespace servescope::engine
