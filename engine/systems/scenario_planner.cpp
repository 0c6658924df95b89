#include "engine/systems/scenario_planner.h"

#include <vector>

#include "model/io/json_cursor.h"

namespace servescope::engine {

ScenarioPlanResult plan_scenario(const Scenario& scenario, const ScenarioPlanRequest& request) {
  return planning_family(request.system).plan(scenario, request);
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
