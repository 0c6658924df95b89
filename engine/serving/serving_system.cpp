#include "engine/serving/serving_system.h"

#include <algorithm>

#include "engine/serving/plan_request.h"
#include "engine/serving/prepared_serving.h"
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

// The defaults are for families without data planes or without planners; the registry only
// asks a family for what it listed, so reaching one is a wiring mistake, said as such.
void ServingFamily::place(const Scenario&, const SimulationSpec& spec, PreparedServing&) const {
  throw QueryError("no data plane named '" + spec.system + "' in this family");
}

void ServingFamily::build(const Scenario&, const SimulationSpec& spec, PreparedServing&) const {
  throw QueryError("no data plane named '" + spec.system + "' in this family");
}

bool ServingFamily::plans(const std::string& system) const {
  const auto names = planners();
  return std::ranges::find(names, system) != names.end();
}

PlannerFamily ServingFamily::planner_family() const {
  throw QueryError("this serving family has no planners");
}

ScenarioPlanResult ServingFamily::plan(const Scenario&, const ScenarioPlanRequest& request) const {
  throw QueryError("no planner named '" + request.system + "' in this family");
}

PlanKind ServingFamily::set_plan(SimulationSpec&, const nlohmann::json&, const std::string&) const {
  throw QueryError("a " + std::string(plan_kind()) + " does not run on a data plane");
}

PlanSummary ServingFamily::summarize(const nlohmann::json&, const std::string& file) const {
  throw InputError(file, "$", "this serving family writes no plans");
}

}  // namespace servescope::engine
