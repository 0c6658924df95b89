#include "engine/cost/frontier_scheduler.h"

#include <algorithm>

namespace servescope::engine {

const FrontierScheduler::Frontier& FrontierScheduler::frontier(const CostModule& module, double rate_rps) {
  auto& f = cache_[{&module, rate_rps}];
  if (f.searched) return f;
  // The module's configurations keep their order: a plan's tiers index them, and the order of a
  // module planned at another rate (a residual, a padded rate) must be the module's own.
  CostModule at_rate = module;
  at_rate.rate_rps = rate_rps;
  BruteForceStats stats;
  f.points = module_frontier(at_rate, options_.limit, stats, options_.max_nodes, options_.padding);
  f.complete = stats.complete;
  f.searched = true;
  nodes_ += stats.nodes;
  return f;
}

const std::vector<FrontierPoint>& FrontierScheduler::points(const CostModule& module, double rate_rps) {
  static const std::vector<FrontierPoint> kNone;
  if (module.is_fixed() || module.configs.empty()) return kNone;
  const auto& f = frontier(module, rate_rps);
  return f.complete ? f.points : kNone;
}

std::optional<ModulePlan> FrontierScheduler::schedule(const CostModule& module, double rate_rps, Duration budget) {
  if (module.is_fixed() || module.configs.empty()) return std::nullopt;
  const auto& f = frontier(module, rate_rps);
  if (!f.complete) return std::nullopt;
  // Points are latency ascending and cost descending: the last one within the budget is cheapest.
  // A budget past the limit gets the plan at the limit: no plan of an application may take longer
  // than its SLO, and the split's options slower than that are priced but never chosen.
  const Duration within = std::min(budget, options_.limit);
  const auto it = std::ranges::upper_bound(f.points, within + kLatencyTolerance, {}, &FrontierPoint::latency);
  if (it == f.points.begin()) return std::nullopt;
  return std::prev(it)->plan;
}

SelectedModuleScheduler::SelectedModuleScheduler(Duration slo, const ModuleSchedulerOptions& options)
    : options_(options),
      exact_(options.exact && options.dispatch == Dispatch::ThroughputCost && options.max_configs == 0),
      frontier_({.limit = slo, .padding = options.dummy != DummyMode::Off}) {}

ModulePlan SelectedModuleScheduler::schedule(const CostModule& module, double rate_rps, Duration budget) {
  if (exact_)
    if (auto plan = frontier_.schedule(module, rate_rps, budget)) return std::move(*plan);
  return schedule_module(module, rate_rps, budget, options_);
}

std::vector<std::pair<Duration, std::size_t>> SelectedModuleScheduler::steps(const CostModule& module,
                                                                             double rate_rps) {
  std::vector<std::pair<Duration, std::size_t>> out;
  if (!exact_) return out;
  for (const auto& p : frontier_.points(module, rate_rps))
    if (!p.plan.tiers.empty()) out.emplace_back(p.latency, p.plan.tiers.front().config);
  return out;
}

}  // namespace servescope::engine
