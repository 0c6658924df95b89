#include "engine/systems/cost/cost_system.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "engine/cost/cost_plan_record.h"
#include "engine/cost/cost_planner.h"
#include "engine/serving/plan_request.h"
#include "engine/systems/cost/cost_data_plane.h"
#include "engine/systems/cost/cost_options.h"
#include "model/core/error.h"

namespace servescope::engine {
namespace {

PlanSummary summary_of(const CostPlanRecord& plan) {
  PlanSummary s;
  s.system = plan.system;
  s.family = PlannerFamily::Cost;
  s.feasible = plan.feasible;
  if (!s.feasible) {
    s.note = plan.reason;
    return s;
  }
  s.cost = plan.total_cost;
  s.gpus = plan.machines;
  for (const auto& m : plan.modules)
    if (!m.cpu) s.throughput_rps = std::max(s.throughput_rps, m.rate_rps);
  if (plan.verified_attainment) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "checked in the simulator: %.1f %% SLO attainment", 100 * *plan.verified_attainment);
    s.note = buf;
  }
  return s;
}

class CostFamily final : public ServingFamily {
 public:
  // A kept plan's machines, served by the throughput-cost (or round-robin) frontend.
  std::vector<DataPlaneTraits> data_planes() const override {
    DataPlaneTraits t;
    t.name = "cost";
    t.runs = PlanKind::Cost;
    t.places_own_gpus = true;
    t.serves_applications = true;
    t.not_live = "cost plans run in the simulator; live workers cannot serve a cost plan's frontend yet";
    t.decides =
        "The cost plan's frontend (seeds 001/004) sends each module's requests to its tiers in throughput-cost "
        "order, each machine batching up to its tier's batch size within the module's latency budget.";
    return {t};
  }
  void place(const Scenario& scenario, const SimulationSpec& spec, PreparedServing& prepared) const override {
    place_cost_plan(scenario, spec, prepared);
  }
  bool serves(const SimulationSpec& spec, const WorkloadTarget& target) const override {
    const auto& plan = spec.options<CostRunOptions>().plan;
    return target.kind == TargetKind::Application && (!plan || target.name == plan->application);
  }
  void build(const Scenario&, const SimulationSpec&, PreparedServing& prepared) const override {
    build_cost_plane(prepared);
  }

  std::vector<std::string> planners() const override {
    auto names = cost_plan_systems();
    names.emplace_back("bruteforce");
    return names;
  }
  // Every preset with its ablation suffixes (harpagon-nd, piccolo-2d) plans too.
  bool plans(const std::string& system) const override { return system == "bruteforce" || is_cost_plan_system(system); }
  PlannerFamily planner_family() const override { return PlannerFamily::Cost; }

  ScenarioPlanResult plan(const Scenario& scenario, const ScenarioPlanRequest& request) const override {
    auto cost = request.cost;
    cost.system = request.system;
    if (cost.scenario.workloads.empty()) cost.scenario.workloads = request.workloads;
    if (request.on_start) request.on_start(PlanningStart{PlannerFamily::Cost, 0, 0, {}});
    auto outcome = plan_cost_scenario(scenario, cost);
    auto summary = summarize(outcome.json, "plan");
    return ScenarioPlanResult{outcome.json, std::move(summary), std::move(outcome)};
  }

  PlanKind set_plan(SimulationSpec& spec, const nlohmann::json& plan, const std::string& file) const override {
    spec.edit_options<CostRunOptions>().plan =
        std::make_shared<const CostPlanRecord>(cost_plan_record_from_json(plan, file));
    return PlanKind::Cost;
  }

  std::string_view title() const override { return "cost"; }
  OptionSchema<ScenarioPlanRequest> planner_options() const override { return cost_planner_options(); }

  std::string_view plan_kind() const override { return "cost-plan"; }
  PlanSummary summarize(const nlohmann::json& plan, const std::string& file) const override {
    return summary_of(cost_plan_record_from_json(plan, file));
  }
};

}  // namespace

std::unique_ptr<ServingFamily> cost_family() {
  return std::make_unique<CostFamily>();
}

}  // namespace servescope::engine
