#include "engine/systems/scenario_planner.h"

#include <vector>

#include "model/core/error.h"
#include "model/io/json_cursor.h"

namespace servescope::engine {

ScenarioPlanResult plan_scenario(const Scenario& scenario, const ScenarioPlanRequest& request) {
  if (!(request.latency_quantile > 0 && request.latency_quantile < 1))
    throw QueryError("the latency quantile to plan at must be in (0, 1) (got " +
                     std::to_string(request.latency_quantile) + ")");
  const auto at_quantile = planned_at_quantile(scenario, request.latency_quantile);
  auto result = planning_family(request.system).plan(at_quantile ? *at_quantile : scenario, request);
  if (at_quantile) {
    result.latency_quantile = request.latency_quantile;
    const auto planned_at = "planned at each measured batch's " + quantile_name(request.latency_quantile) + " latency";
    result.summary.note = result.summary.note.empty() ? planned_at : result.summary.note + "; " + planned_at;
  }
  return result;
}

PlanSummary summarize_plan(const nlohmann::json& plan, const std::string& file) {
  const JsonCursor root(plan, file);
  if (!plan.is_object()) root.fail("expected a plan, a JSON object");
  const auto kind = root.at("kind");
  const auto k = kind.as_string();
  if (const auto* family = plan_kind_family(k)) return family->summarize(plan, file);
  std::vector<std::string> kinds;
  for (const auto& f : SystemRegistry::instance().families())
    if (!f->plan_kind().empty()) kinds.emplace_back(f->plan_kind());
  std::string listed;
  for (std::size_t i = 0; i < kinds.size(); ++i)
    listed += (i == 0 ? "" : i + 1 == kinds.size() ? " or " : ", ") + kinds[i];
  kind.fail("expected " + listed + ", got '" + k + "'");
}

}  // namespace servescope::engine
