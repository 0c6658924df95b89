#include "engine/cost/queue_model_planning.h"

#include "engine/cost/cost_simulation.h"
#include "engine/cost/frontier_scheduler.h"

namespace servescope::engine {

double modelled_miss(const CostPlan& plan, std::size_t m, const ModulePlan& candidate, const ModuleArrivals& arrivals,
                     const QueueModelOptions& model) {
  if (!candidate.feasible) return 1;
  // Module m alone, with the module's budget as its SLO: its requests are dropped or late exactly
  // when they would miss the budget inside the application.
  CostProblem alone;
  alone.name = plan.problem.name + "/" + plan.problem.modules[m].id;
  alone.modules = {plan.problem.modules[m]};
  alone.modules[0].rate_rps = arrivals.rate_rps;
  alone.slo = plan.budgets[m];
  CostPlan sub;
  sub.system = plan.system;
  sub.dispatch = plan.dispatch;
  sub.problem = alone;
  sub.modules = {candidate};
  complete_plan(sub, alone, CostDag(alone));
  if (!sub.feasible) return 1;
  CostSimulationOptions run;
  run.seed = model.seed;
  run.duration = run.warmup + model.span;
  run.arrival_list = arrival_instants(arrivals, run.duration, model.seed * 1'000'003 + m);
  const auto result = simulate_cost_plan(sub, run);
  const auto& st = result.modules[0];
  return st.requests ? static_cast<double>(st.over_budget + st.dropped) / static_cast<double>(st.requests) : 0.0;
}

CostPlan plan_cost_for_queueing(const CostProblem& problem, const CostPlanOptions& options,
                                const std::vector<double>& targets, const QueueModelOptions& model,
                                QueueModelReport* report) {
  auto smooth = options;
  smooth.burst_z = 0;
  smooth.module_burst_z.clear();
  auto plan = plan_cost(problem, smooth);
  if (!plan.feasible) return plan;
  const CostDag dag(problem);
  const std::size_t n = problem.modules.size();
  std::vector<double> planned(n);
  for (std::size_t m = 0; m < n; ++m)
    planned[m] = problem.modules[m].rate_rps;
  QueueModelReport local;
  auto& out = report ? *report : local;
  out = {};
  // Each round checks every module of the plan in hand; the last only checks.
  for (int round = 0;; ++round) {
    const auto arrivals = module_arrivals(problem, dag, plan, model.source_shape);
    out.miss.assign(n, 0.0);
    std::vector<std::size_t> over;
    for (std::size_t m = 0; m < n; ++m) {
      if (problem.modules[m].is_fixed()) continue;
      out.miss[m] = modelled_miss(plan, m, plan.modules[m], arrivals[m], model);
      if (out.miss[m] > (m < targets.size() ? targets[m] : model.target_miss)) over.push_back(m);
    }
    out.held = over.empty();
    out.rounds = round;
    if (out.held || round == model.rounds) break;
    SelectedModuleScheduler scheduler(plan.problem.slo, smooth.module);
    for (const auto m : over) {
      const double target = m < targets.size() ? targets[m] : model.target_miss;
      // The least padded rate above the one that missed whose plan at the module's budget holds.
      const double real = problem.modules[m].rate_rps;
      const auto& mod = plan.problem.modules[m];
      double rate = planned[m] + model.max_steps * model.step * real;  // nothing on the grid held
      for (int k = 1; k <= model.max_steps; ++k) {
        const double tried = planned[m] + k * model.step * real;
        if (modelled_miss(plan, m, scheduler.schedule(mod, tried, plan.budgets[m]), arrivals[m], model) <= target) {
          rate = tried;
          break;
        }
      }
      planned[m] = rate;
    }
    CostProblem padded = problem;
    for (std::size_t m = 0; m < n; ++m)
      padded.modules[m].rate_rps = planned[m];
    auto next = plan_cost(padded, smooth);
    if (!next.feasible) return next;
    serve_real_rates(next, problem, padded);
    plan = std::move(next);
  }
  return plan;
}

}  // namespace servescope::engine
