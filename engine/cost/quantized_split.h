// The quantized latency split (Nexus's complex_query, Harpagon seed 004 §2.10; the -q0.1 and
// -q0.01 ablations and the nexus preset): every module's budget is a whole number of quanta, and
// the split minimises the total cost over all such budgets whose critical path fits the SLO.
//
// A budget only helps where the module's cost drops: a module given budget j can run the plan
// it had at any smaller budget. So each module is offered its breakpoints (the budgets at which
// its cost reaches a new low) and nothing between, which keeps the optimum and makes the search
// small: a tree DP when every module has at most one parent, branch and bound otherwise. Before,
// the search walked every step, and a 4-module diamond with a 13 s SLO took 308 s (BENCHMARKS.md
// "Cost planners").
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/cost/cost_problem.h"

namespace servescope::engine {

// The most quanta a split plans; a longer SLO (or a finer quantum) is refused, not searched.
inline constexpr std::int64_t kMaxQuantizedSteps = 5'000;
// Branch-and-bound nodes before the split refuses (deterministic, unlike a clock).
inline constexpr std::uint64_t kMaxQuantizedNodes = 5'000'000;

struct QuantizedSplit {
  std::vector<Duration> budgets;  // per module; empty when refused or infeasible
  std::string refusal;            // why the split was not searched (bounds), else empty
};

// `cost(m, budget)`: module m's cost at that budget, infinity when it cannot make it.
QuantizedSplit quantized_split(const CostDag& dag, Duration slo, Duration quantum,
                               const std::function<double(std::size_t, Duration)>& cost);

}  // namespace servescope::engine
