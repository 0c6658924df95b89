#include "engine/systems/plan_to_run.h"

#include <algorithm>
#include <vector>

#include "engine/systems/system_registry.h"
#include "model/core/error.h"
#include "model/io/json_cursor.h"

namespace servescope::engine {

void use_plan(SimulationSpec& spec, const nlohmann::json& plan, const std::string& source,
              const std::optional<std::string>& system) {
  const auto kind_field = plan.is_object() ? JsonCursor(plan, source).find("kind") : std::nullopt;
  // Plans from before plans had a kind are pipeline plans.
  const auto kind = kind_field && kind_field->value().is_string() ? kind_field->as_string() : "pipeline-plan";
  const auto* family = plan_kind_family(kind);
  if (!family) throw QueryError("no serving system runs a plan of kind '" + kind + "'");
  // The plan is read first: a malformed one is the problem to report.
  const PlanKind runs = family->set_plan(spec, plan, source);
  // The registry's first data plane for this kind runs it unless the caller names another.
  std::vector<std::string> planes;
  for (const auto& t : data_planes())
    if (t.runs == runs) planes.push_back(t.name);
  spec.system = system.value_or(planes.front());
  if (data_plane_traits(spec.system).runs != runs) {
    std::string listed;
    for (const auto& name : planes)
      listed += (listed.empty() ? "" : " or ") + name;
    throw QueryError("a " + kind + " runs on the " + listed + " data plane, not " + spec.system);
  }
}

bool runs_on_a_data_plane(const nlohmann::json& plan) {
  if (!plan.is_object() || !plan.contains("kind") || !plan["kind"].is_string()) return false;
  const auto* family = plan_kind_family(plan["kind"].get<std::string>());
  return family && std::ranges::any_of(family->data_planes(), [](const auto& t) { return t.runs != PlanKind::None; });
}

}  // namespace servescope::engine
