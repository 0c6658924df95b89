#include "engine/planning/scenario_planner.h"

#include <algorithm>
#include <cstdio>

#include "engine/glet/glet_plan_json.h"
#include "engine/glet/glet_scenario.h"
#include "engine/ppipe/pipeline_plan_json.h"
#include "engine/ppipe/scenario_planning.h"
#include "model/core/error.h"

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

PlanSummary summarize_plan(const nlohmann::json& plan) {
  PlanSummary s;
  s.system = plan.value("system", "");
  const auto kind = plan.value("kind", "");
  if (kind == "pipeline-plan") {
    s.family = PlannerFamily::Pipeline;
    s.throughput_rps = plan.value("total_throughput_rps", 0.0);
    s.feasible = s.throughput_rps > 0;
    for (const auto& p : plan.value("pipelines", nlohmann::json::array()))
      for (const auto& d : p.value("partitions", nlohmann::json::array()))
        s.gpus += d.value("gpus", 0);
    if (!s.feasible) s.note = "no pipeline meets its SLO";
  } else if (kind == "glet-plan") {
    s.family = PlannerFamily::Glet;
    s.feasible = plan.value("feasible", false);
    s.gpus = plan.value("gpus_used", 0);
    for (const auto& m : plan.value("models", nlohmann::json::array()))
      s.throughput_rps += m.value("assigned_rps", 0.0);
    s.note = plan.value("message", "");
  } else if (kind == "cost-plan") {
    s.family = PlannerFamily::Cost;
    s.feasible = plan.value("feasible", false);
    s.cost = plan.value("total_cost", 0.0);
    s.gpus = plan.value("machines", 0);
    for (const auto& m : plan.value("modules", nlohmann::json::array()))
      if (m.value("kind", "") == "dnn") s.throughput_rps = std::max(s.throughput_rps, m.value("rate_rps", 0.0));
    s.note = s.feasible ? "" : plan.value("reason", "");
    if (plan.contains("verification")) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "checked in the simulator: %.1f %% SLO attainment",
                    100 * plan["verification"].value("slo_attainment", 0.0));
      s.note = buf;
    }
  } else {
    throw QueryError("not a plan (kind '" + kind + "')");
  }
  return s;
}

ScenarioPlanResult plan_scenario(const Scenario& scenario, const ScenarioPlanRequest& request) {
  const auto planners = scenario_planners();
  const auto it = std::ranges::find(planners, request.system, &std::pair<PlannerFamily, std::string>::second);
  if (it == planners.end() && !is_cost_plan_system(request.system))
    throw QueryError("unknown planner '" + request.system + "'");
  const auto family = it == planners.end() ? PlannerFamily::Cost : it->first;
  ScenarioPlanResult out;
  switch (family) {
    case PlannerFamily::Pipeline: {
      const auto input = planning_input(scenario, request.workloads);
      out.plan = pipeline_plan_to_json(plan_pipelines(request.system, input, request.ppipe), scenario.name);
      break;
    }
    case PlannerFamily::Glet: {
      auto in = glet_input(scenario, request.workloads, request.glet_gpu);
      if (!request.glet_sizes.empty()) in.latency.sizes = request.glet_sizes;
      out.plan = glet_plan_to_json(
          plan_glet_system(request.system, in.models, in.latency, request.glet, 1, in.gpu_limit), scenario.name);
      break;
    }
    case PlannerFamily::Cost: {
      auto cost = request.cost;
      cost.system = request.system;
      if (cost.scenario.workloads.empty()) cost.scenario.workloads = request.workloads;
      out.plan = plan_cost_scenario(scenario, cost).json;
      break;
    }
  }
  out.summary = summarize_plan(out.plan);
  return out;
}

}  // namespace servescope::engine
