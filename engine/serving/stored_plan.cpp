#include "engine/serving/stored_plan.h"

#include "engine/glet/glet_plan_json.h"
#include "engine/ppipe/pipeline_plan_json.h"
#include "model/io/json_cursor.h"

namespace servescope::engine {

StoredPlan read_plan(const nlohmann::json& plan, const std::string& file) {
  const JsonCursor root(plan, file);
  if (!plan.is_object()) root.fail("expected a plan, a JSON object");
  const auto kind = root.at("kind");
  const auto k = kind.as_string();
  if (k == "pipeline-plan") return pipeline_plan_from_json(plan, file);
  if (k == "glet-plan") return glet_plan_from_json(plan, file);
  if (k == "cost-plan") return cost_plan_record_from_json(plan, file);
  kind.fail("expected pipeline-plan, glet-plan or cost-plan, got '" + k + "'");
}

}  // namespace servescope::engine
