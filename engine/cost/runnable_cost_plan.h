// A kept cost plan made runnable again (Piccolo seed 001 §4, Harpagon seed 004 §3): a plan file
// holds each module's chosen tiers (hardware, batch, concurrency, batch duration, price,
// machines), budget and rates, which is what the frontend needs to serve it; the configuration
// space the planner chose from is not kept. The tiers become the module's configurations, and
// the scenario's profile adds the smaller batches on the same hardware, which the frontend runs
// when a burst or a timeout leaves fewer requests than a full batch (cost_dispatcher.h), as the
// planner's own problem had them.
#pragma once

#include "engine/cost/cost_plan.h"
#include "engine/cost/cost_plan_record.h"
#include "model/scenario/scenario.h"

namespace servescope::engine {

// Throws QueryError for a plan that cannot run: infeasible, a module without tiers, edges naming
// no module, a tier without its batch duration that the scenario cannot time either.
CostPlan runnable_cost_plan(const CostPlanRecord& record, const Scenario& scenario);

}  // namespace servescope::engine
