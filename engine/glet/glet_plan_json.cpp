#include "engine/glet/glet_plan_json.h"

#include <algorithm>

#include "model/io/file_io.h"
#include "model/io/json_cursor.h"
#include "model/workload/workload.h"

namespace servescope::engine {
namespace {

GletMode parse_mode(const JsonCursor& c) {
  const auto s = c.as_string();
  for (const auto m : {GletMode::Saturated, GletMode::Residue, GletMode::TimeShared})
    if (to_string(m) == s) return m;
  c.fail("expected saturated, residue or time-shared");
}

}  // namespace

nlohmann::json glet_plan_to_json(const GletPlan& plan, const std::string& scenario_name) {
  nlohmann::json models = nlohmann::json::array();
  for (const auto& m : plan.models)
    models.push_back(
        {{"name", m.name}, {"rate_rps", m.rate_rps}, {"slo_us", m.slo.to_us()}, {"assigned_rps", m.assigned_rps}});
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : plan.layout.gpus) {
    nlohmann::json glets = nlohmann::json::array();
    for (const auto& l : g.glets) {
      nlohmann::json hosted = nlohmann::json::array();
      for (const auto& a : l.models)
        hosted.push_back({{"model", plan.models.at(static_cast<std::size_t>(a.model)).name},
                          {"batch", a.batch},
                          {"rate_rps", a.rate_rps},
                          {"latency_us", a.latency.to_us()},
                          {"interference", a.interference}});
      nlohmann::json glet = {{"size_percent", l.size_percent}, {"models", std::move(hosted)}};
      if (!l.free()) {
        glet["mode"] = std::string(to_string(l.mode));
        glet["duty_cycle_us"] = l.duty_cycle.to_us();
        glet["occupancy"] = l.occupancy();
      }
      glets.push_back(std::move(glet));
    }
    gpus.push_back({{"glets", std::move(glets)}});
  }
  nlohmann::json unplaced = plan.unplaced_rps;
  return {{"schema_version", kSchemaVersion},
          {"kind", "glet-plan"},
          {"system", plan.system},
          {"scenario", scenario_name},
          {"gpu", plan.gpu},
          {"feasible", plan.feasible},
          {"message", plan.message},
          {"gpus", plan.gpus},
          {"gpus_used", plan.layout.gpus_used()},
          {"next_gpus", plan.next_gpus},
          {"total_size_percent", plan.layout.total_size_percent()},
          {"models", std::move(models)},
          {"unplaced_rps", std::move(unplaced)},
          {"layout", std::move(gpus)}};
}

GletPlan glet_plan_from_json(const nlohmann::json& json, const std::string& file) {
  const JsonCursor root(json, file);
  expect_document_header(root, "glet-plan");
  root.expect_object({"schema_version", "kind", "system", "scenario", "gpu", "feasible", "message", "gpus", "gpus_used",
                      "next_gpus", "total_size_percent", "models", "unplaced_rps", "layout"});
  GletPlan plan;
  plan.system = root.at("system").as_string();
  plan.gpu = root.at("gpu").as_string();
  plan.feasible = root.at("feasible").as_bool();
  plan.message = root.string_or("message", "");
  const auto models = root.at("models");
  for (std::size_t i = 0; i < models.size(); ++i) {
    const auto m = models[i];
    m.expect_object({"name", "rate_rps", "slo_us", "assigned_rps"});
    plan.models.push_back({m.at("name").as_string(), m.at("rate_rps").as_double(0, kMaxRateRps),
                           m.at("slo_us").as_duration_us(1), m.at("assigned_rps").as_double(0, kMaxRateRps)});
  }
  const auto index_of = [&](const JsonCursor& c) {
    const auto name = c.as_string();
    const auto it = std::ranges::find(plan.models, name, &GletPlannedModel::name);
    if (it == plan.models.end()) c.fail("names no model of the plan's \"models\"");
    return static_cast<int>(it - plan.models.begin());
  };
  const auto gpus = root.at("layout");
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    const auto gc = gpus[g];
    gc.expect_object({"glets"});
    const auto glets = gc.at("glets");
    GletGpu gpu;
    int total = 0;
    for (std::size_t k = 0; k < glets.size(); ++k) {
      const auto lc = glets[k];
      lc.expect_object({"size_percent", "models", "mode", "duty_cycle_us", "occupancy"});
      Glet l;
      l.size_percent = static_cast<int>(lc.at("size_percent").as_int(1, 100));
      total += l.size_percent;
      const auto hosted = lc.at("models");
      for (std::size_t j = 0; j < hosted.size(); ++j) {
        const auto ac = hosted[j];
        ac.expect_object({"model", "batch", "rate_rps", "latency_us", "interference"});
        l.models.push_back({index_of(ac.at("model")), static_cast<int>(ac.at("batch").as_int(1, kMaxBatchSize)),
                            ac.at("rate_rps").as_double(0, kMaxRateRps), ac.at("latency_us").as_duration_us(0),
                            ac.double_or("interference", 1, 1, 100)});
      }
      if (!l.free()) {
        l.mode = parse_mode(lc.at("mode"));
        l.duty_cycle = lc.at("duty_cycle_us").as_duration_us(0);
      }
      gpu.glets.push_back(std::move(l));
    }
    if (gpu.glets.empty() || gpu.glets.size() > 2 || total != 100)
      glets.fail("a GPU holds one glet of 100 % or two whose sizes add up to 100 %");
    plan.layout.gpus.push_back(std::move(gpu));
  }
  plan.gpus = static_cast<int>(root.at("gpus").as_int(0, 1 << 20));
  plan.next_gpus = static_cast<int>(root.at("next_gpus").as_int(0, 1 << 20));
  if (const auto u = root.find("unplaced_rps"))
    for (std::size_t i = 0; i < u->size(); ++i)
      plan.unplaced_rps.push_back((*u)[i].as_double(0, kMaxRateRps));
  return plan;
}

GletPlan load_glet_plan(const std::string& path) {
  return glet_plan_from_json(parse_json_text(read_text_file(path), path), path);
}

}  // namespace servescope::engine
