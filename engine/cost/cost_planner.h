// The cost planner: Piccolo (seed 001 §3.5), Harpagon (seed 004 §2.1), their baselines (Nexus,
// Scrooge, InferLine, Clipper) and every ablation as presets of one pipeline — restrict the
// configuration space, split the SLO into module budgets, schedule each module (Alg. 1 or the
// one/two-configuration schedulers, fallback, dummies), hand leftover latency to the residual
// tiers, and check the result. Deterministic: no clocks, no randomness, stable tie-breaks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/cost/cost_plan.h"
#include "engine/cost/cost_presets.h"

namespace servescope::engine {

CostPlan plan_cost(const CostProblem& problem, const CostPlanOptions& options);

// A plan made for `padded` rates, made to serve `real` ones: its module rates become the real ones
// and what its tiers carry beyond them is headroom (ModulePlan::headroom_rps).
void serve_real_rates(CostPlan& plan, const CostProblem& real, const CostProblem& padded);

}  // namespace servescope::engine
