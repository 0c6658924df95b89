#include "engine/planning/scenario_planner.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "engine/glet/glet_plan_json.h"
#include "engine/glet/glet_scenario.h"
#include "engine/ppipe/pipeline_plan_json.h"
#include "engine/ppipe/scenario_planning.h"
#include "model/core/error.h"
#include "model/io/json_cursor.h"

namespace servescope::engine {

std::string_view to_string(PlannerFamily family) {
  switch (family) {
    case PlannerFamily::Pipeline:
      return "pooled pipelines";
    case PlannerFamily::Glet:
      return "gpu-let";
    case PlannerFamily::Cost:
      return "cost";
  }
  return "?";
}

std::vector<std::pair<PlannerFamily, std::string>> scenario_planners() {
  std::vector<std::pair<PlannerFamily, std::string>> out;
  for (const auto& s : pipeline_planners())
    out.emplace_back(PlannerFamily::Pipeline, s);
  for (const auto& s : glet_systems())
    out.emplace_back(PlannerFamily::Glet, s);
  for (const auto& s : cost_plan_systems())
    out.emplace_back(PlannerFamily::Cost, s);
  out.emplace_back(PlannerFamily::Cost, "bruteforce");
  return out;
}

PlannerFamily planner_family(const std::string& system) {
  const auto planners = scenario_planners();
  const auto it = std::ranges::find(planners, system, &std::pair<PlannerFamily, std::string>::second);
  if (it != planners.end()) return it->first;
  if (is_cost_plan_system(system)) return PlannerFamily::Cost;
  throw QueryError("unknown planner '" + system + "'");
}

namespace {

PlanSummary summary_of(const PipelinePlan& plan) {
  PlanSummary s;
  s.system = plan.system;
  s.family = PlannerFamily::Pipeline;
  s.throughput_rps = plan.total_throughput_rps();
  s.feasible = s.throughput_rps > 0;
  for (const auto& p : plan.pipelines)
    for (const auto& d : p.partitions)
      s.gpus += d.gpus;
  if (!s.feasible) s.note = "no pipeline meets its SLO";
  return s;
}

PlanSummary summary_of(const GletPlan& plan) {
  PlanSummary s;
  s.system = plan.system;
  s.family = PlannerFamily::Glet;
  s.feasible = plan.feasible;
  s.gpus = plan.layout.gpus_used();
  for (const auto& m : plan.models)
    s.throughput_rps += m.assigned_rps;
  s.note = plan.message;
  return s;
}

// Cost plans have no reader of their own (nothing loads one back to run it), so the figures are
// read here, each through the cursor.
PlanSummary cost_summary(const JsonCursor& root) {
  expect_document_header(root, "cost-plan");
  PlanSummary s;
  s.system = root.at("system").as_string();
  s.family = PlannerFamily::Cost;
  s.feasible = root.at("feasible").as_bool();
  if (!s.feasible) {
    s.note = root.string_or("reason", "");
    return s;
  }
  s.cost = root.at("total_cost").as_double(0, 1e300);
  s.gpus = static_cast<int>(root.at("machines").as_int(0, INT32_MAX));
  const auto modules = root.at("modules");
  for (std::size_t m = 0; m < modules.size(); ++m) {
    const auto module = modules[m];
    const auto kind = module.at("kind");
    const auto k = kind.as_string();
    if (k == "dnn")
      s.throughput_rps = std::max(s.throughput_rps, module.at("rate_rps").as_double(0, 1e12));
    else if (k != "cpu")
      kind.fail("expected dnn or cpu, got '" + k + "'");
  }
  if (const auto v = root.find("verification")) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "checked in the simulator: %.1f %% SLO attainment",
                  100 * v->at("slo_attainment").as_double(0, 1));
    s.note = buf;
  }
  return s;
}

}  // namespace

PlanSummary summarize_plan(const nlohmann::json& plan, const std::string& file) {
  const JsonCursor root(plan, file);
  if (!plan.is_object()) root.fail("expected a plan, a JSON object");
  const auto kind = root.at("kind");
  const auto k = kind.as_string();
  if (k == "pipeline-plan") return summary_of(pipeline_plan_from_json(plan, file));
  if (k == "glet-plan") return summary_of(glet_plan_from_json(plan, file));
  if (k == "cost-plan") return cost_summary(root);
  kind.fail("expected pipeline-plan, glet-plan or cost-plan, got '" + k + "'");
}

ScenarioPlanResult plan_scenario(const Scenario& scenario, const ScenarioPlanRequest& request) {
  const auto family = planner_family(request.system);
  const auto starting = [&](std::size_t models, int gpus, const std::string& gpu) {
    if (request.on_start) request.on_start(PlanningStart{family, models, gpus, gpu});
  };
  ScenarioPlanResult out;
  switch (family) {
    case PlannerFamily::Pipeline: {
      const auto input = planning_input(scenario, request.workloads);
      starting(input.models.size(), scenario.cluster.total_gpus(), {});
      auto plan = plan_pipelines(request.system, input, request.ppipe);
      out.plan = pipeline_plan_to_json(plan, scenario.name);
      out.summary = summary_of(plan);
      out.planned = std::move(plan);
      break;
    }
    case PlannerFamily::Glet: {
      auto in = glet_input(scenario, request.workloads, request.glet_gpu);
      if (!request.glet_sizes.empty()) in.latency.sizes = request.glet_sizes;
      in.latency.latency_safety = request.glet_safety;
      in.latency.knee = request.glet_knee;
      const int limit = request.glet_gpu_limit > 0 ? std::min(request.glet_gpu_limit, in.gpu_limit) : in.gpu_limit;
      starting(in.models.size(), limit, in.latency.gpu);
      auto plan =
          plan_glet_system(request.system, in.models, in.latency, request.glet, request.glet_previous_gpus, limit);
      out.plan = glet_plan_to_json(plan, scenario.name);
      out.summary = summary_of(plan);
      out.planned = std::move(plan);
      break;
    }
    case PlannerFamily::Cost: {
      auto cost = request.cost;
      cost.system = request.system;
      if (cost.scenario.workloads.empty()) cost.scenario.workloads = request.workloads;
      starting(0, 0, {});
      auto outcome = plan_cost_scenario(scenario, cost);
      out.plan = outcome.json;
      out.summary = summarize_plan(out.plan);
      out.planned = std::move(outcome);
      break;
    }
  }
  return out;
}

}  // namespace servescope::engine
