#include "engine/systems/cost/cost_system.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "engine/cost/cost_planner.h"
#include "engine/serving/plan_request.h"
#include "model/io/json_cursor.h"

namespace servescope::engine {
namespace {

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

class CostFamily final : public ServingFamily {
 public:
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
    ScenarioPlanResult out;
    out.plan = outcome.json;
    out.summary = summarize(out.plan, "plan");
    out.planned = std::move(outcome);
    return out;
  }

  std::string_view plan_kind() const override { return "cost-plan"; }
  PlanSummary summarize(const nlohmann::json& plan, const std::string& file) const override {
    return cost_summary(JsonCursor(plan, file));
  }
};

}  // namespace

std::unique_ptr<ServingFamily> cost_family() {
  return std::make_unique<CostFamily>();
}

}  // namespace servescope::engine
