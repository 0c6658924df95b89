// Cost plans as JSON (docs/formats.md, "Cost plans"): per module its tiers of machines in
// throughput-cost order, budget, worst-case latency, dummy rate and cost; the total cost, the
// end-to-end WCL and the splitter's trace. What `servescope-cli plan` writes for the cost systems.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/cost/cost_planner.h"

namespace servescope::engine {

nlohmann::json cost_plan_to_json(const CostPlan& plan, const std::string& scenario_name);

}  // namespace servescope::engine
