#include "engine/cost/verified_planning.h"

#include <algorithm>
#include <optional>
#include <variant>

namespace servescope::engine {

VerifiedPlan plan_cost_verified(const CostProblem& problem, CostPlanOptions options,
                                const VerifiedPlanOptions& verify) {
  VerifiedPlan out;
  const std::size_t n = problem.modules.size();
  bool queueing = verify.headroom == HeadroomModel::Queueing;
  options.module_burst_z.assign(n, options.burst_z > 0 ? options.burst_z : verify.start_z);
  auto model = verify.model;
  if (const auto* gamma = std::get_if<GammaArrivals>(&verify.simulation.arrivals)) model.source_shape = gamma->shape;
  std::vector<double> targets(n, model.target_miss);
  for (int round = 1; round <= verify.max_rounds; ++round) {
    // The count formula from start_z, already raised for the modules that missed.
    if (queueing && round > verify.model_rounds) queueing = false;
    auto plan = queueing ? plan_cost_for_queueing(problem, options, targets, model) : plan_cost(problem, options);
    if (!plan.feasible) {
      if (round == 1) out.plan = std::move(plan);  // nothing better to return
      return out;
    }
    std::optional<CostSimulationResult> worst;
    out.requests = 0;
    for (int r = 0; r < std::max(1, verify.runs); ++r) {
      auto sim = verify.simulation;
      sim.seed += static_cast<std::uint64_t>(r);
      auto result = simulate_cost_plan(plan, sim);
      out.requests += result.app.arrivals;
      if (!worst || result.app.attainment() < worst->app.attainment()) worst = std::move(result);
    }
    const auto& run = *worst;
    out.plan = std::move(plan);
    out.attainment = run.app.attainment();
    out.rounds = round;
    out.met = out.attainment >= verify.target + verify.margin;
    if (out.met) return out;
    // More headroom where requests missed their module budget; everywhere when none did (the
    // misses were drops).
    const double allowed = (1 - verify.target - verify.margin) / static_cast<double>(n);
    bool any = false;
    for (std::size_t m = 0; m < n; ++m) {
      const auto& st = run.modules[m];
      const double missed =
          st.requests ? static_cast<double>(st.over_budget + st.dropped) / static_cast<double>(st.requests) : 0;
      if (missed > allowed) {
        options.module_burst_z[m] *= verify.step;
        targets[m] /= verify.tighten;
        any = true;
      }
    }
    if (!any) {
      for (auto& z : options.module_burst_z)
        z *= verify.step;
      for (auto& t : targets)
        t /= verify.tighten;
    }
  }
  return out;
}

}  // namespace servescope::engine
