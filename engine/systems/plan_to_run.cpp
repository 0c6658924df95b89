#include "engine/systems/plan_to_run.h"

#include <memory>
#include <vector>

#include "engine/glet/glet_plan_json.h"
#include "engine/ppipe/pipeline_plan_json.h"
#include "engine/systems/system_registry.h"
#include "model/core/error.h"
#include "model/io/json_cursor.h"

namespace servescope::engine {
void use_plan(SimulationSpec& spec, const nlohmann::json& plan, const std::string& source,
              const std::optional<std::string>& system) {
  const auto kind_field = plan.is_object() ? JsonCursor(plan, source).find("kind") : std::nullopt;
  const auto kind = kind_field && kind_field->value().is_string() ? kind_field->as_string() : std::string();
  spec.pipeline_plan.reset();
  spec.glet_plan.reset();
  if (kind == "cost-plan") throw QueryError("a cost-plan is simulated with servescope-cli plan --simulate");
  const PlanKind runs = kind == "glet-plan" ? PlanKind::Glet : PlanKind::Pipeline;
  // The plan is read first: a malformed one is the problem to report.
  if (runs == PlanKind::Glet)
    spec.glet_plan = std::make_shared<const GletPlan>(glet_plan_from_json(plan, source));
  else
    spec.pipeline_plan = std::make_shared<const PipelinePlan>(pipeline_plan_from_json(plan, source));
  // The registry's first data plane for this kind runs it unless the caller names another.
  std::vector<std::string> planes;
  for (const auto& t : data_planes())
    if (t.runs == runs) planes.push_back(t.name);
  spec.system = system.value_or(planes.front());
  if (data_plane_traits(spec.system).runs != runs) {
    std::string listed;
    for (const auto& name : planes)
      listed += (listed.empty() ? "" : " or ") + name;
    throw QueryError("a " + (kind.empty() ? std::string("pipeline-plan") : kind) + " runs on the " + listed +
                     " data plane, not " + spec.system);
  }
}

}  // namespace servescope::engine
