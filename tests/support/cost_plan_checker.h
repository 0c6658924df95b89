// An independent re-check of a cost plan (Piccolo seed 001 §1, Harpagon seed 004 §1): every
// tier runs a configuration the original problem offers, whole machines are whole, the served
// rate covers the module's rate, each tier's worst-case latency recomputed from scratch under the
// plan's dispatch rule fits the module latency, the critical path fits the SLO, budgets cover
// the latencies and add up to no more than the SLO on any path, and the cost adds up.
#pragma once

#include <string>
#include <vector>

#include "engine/cost/cost_plan.h"

namespace servescope::test {

// Empty when the plan holds; else one line per violation.
std::vector<std::string> check_cost_plan(const engine::CostProblem& original, const engine::CostPlan& plan);

}  // namespace servescope::test
