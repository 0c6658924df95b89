#include "engine/cost/cost_plan.h"

#include <algorithm>
#include <string>

namespace servescope::engine {

void complete_plan(CostPlan& plan, const CostProblem& problem, const CostDag& dag) {
  plan.latency.assign(problem.modules.size(), Duration());
  plan.cost = 0;
  for (std::size_t m = 0; m < problem.modules.size(); ++m) {
    plan.latency[m] = problem.modules[m].is_fixed() ? problem.modules[m].fixed_latency : plan.modules[m].wcl;
    plan.cost += plan.modules[m].cost;
  }
  plan.e2e_wcl = dag.longest_path(plan.latency);
  plan.feasible = false;
  if (plan.e2e_wcl > problem.slo + kLatencyTolerance) {
    plan.reason = "the scheduled modules take " + std::to_string(plan.e2e_wcl.to_ms()) +
                  " ms on the critical path, above the SLO of " + std::to_string(problem.slo.to_ms()) + " ms";
    return;
  }
  // Budgets that add up to the SLO along the critical path, each at least the module's latency.
  plan.budgets = plan.latency;
  if (plan.e2e_wcl > Duration())
    for (auto& b : plan.budgets)
      b = Duration::from_s(b.to_s() * problem.slo.to_s() / plan.e2e_wcl.to_s());
  plan.feasible = true;
  plan.reason.clear();
}

int CostPlan::machines() const {
  int n = 0;
  for (const auto& m : modules)
    n += m.machines();
  return n;
}

double CostPlan::dummy_rps() const {
  double d = 0;
  for (const auto& m : modules)
    d += m.dummy_rps;
  return d;
}

bool CostPlan::has_headroom() const {
  return std::ranges::any_of(modules, [](const ModulePlan& m) { return m.headroom_rps > 0; });
}

std::vector<Duration> CostPlan::latency_at_rates() const {
  std::vector<Duration> out(problem.modules.size());
  for (std::size_t m = 0; m < out.size(); ++m) {
    const auto& mod = problem.modules[m];
    out[m] = mod.is_fixed() || m >= modules.size() ? mod.fixed_latency
                                                   : wcl_at_rate(modules[m], mod, mod.rate_rps, dispatch);
  }
  return out;
}

Duration CostPlan::e2e_wcl_at_rates() const {
  return CostDag(problem).longest_path(latency_at_rates());
}

}  // namespace servescope::engine
