#include "engine/cost/module_scheduler.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace servescope::engine {
namespace {

bool within(Duration latency, Duration budget) {
  return latency <= budget + kLatencyTolerance;
}

// Latency of `machines` whole machines of `c` when they are the tier that sees `remaining`
// (this tier and everything below it), under each dispatch rule.
Duration full_tier_latency(const CostConfig& c, double machines, double remaining, Dispatch dispatch) {
  switch (dispatch) {
    case Dispatch::ThroughputCost:
      return c.duration + collection_time(c.batch, remaining);
    case Dispatch::RoundRobin:
      return c.duration + collection_time(c.batch, c.throughput_rps);
    case Dispatch::DirectThroughput:
      return c.duration + collection_time(c.batch, machines * c.throughput_rps);
  }
  return Duration::max();
}

double whole(double n) {
  return std::floor(n + kRateEpsilon);
}

ModulePlan finish(const CostModule& module, std::vector<Tier> tiers, double rate_rps, Duration budget,
                  Dispatch dispatch) {
  ModulePlan plan;
  plan.tiers = std::move(tiers);
  evaluate(plan, module, dispatch);
  plan.dummy_rps = std::max(0.0, plan.served_rps() - rate_rps);
  if (plan.dummy_rps <= kRateEpsilon * rate_rps) plan.dummy_rps = 0;
  plan.feasible = !plan.tiers.empty() && within(plan.wcl, budget);
  return plan;
}

// All of `rate` on configuration k: whole machines at the rule's latency, then a partial one
// collecting at its own rate. nullopt when either misses the budget.
std::optional<std::vector<Tier>> carry_alone(const CostModule& module, std::size_t k, double rate, Duration budget,
                                             Dispatch dispatch) {
  const auto& c = module.configs[k];
  std::vector<Tier> tiers;
  const double m = whole(rate / c.throughput_rps);
  if (m >= 1) {
    if (!within(full_tier_latency(c, m, rate, dispatch), budget)) return std::nullopt;
    tiers.push_back(Tier::whole(k, m));
  }
  const double rest = rate - m * c.throughput_rps;
  if (rest > kRateEpsilon * rate) {
    if (!within(c.duration + collection_time(c.batch, rest), budget)) return std::nullopt;
    tiers.push_back(Tier::fraction(k, rest / c.throughput_rps));
  }
  return tiers;
}

// Replaces `best` with `candidate` when it is feasible, allowed and strictly cheaper.
void keep_cheaper(std::optional<ModulePlan>& best, ModulePlan candidate, const CostModule& module, int max_configs) {
  if (!candidate.feasible || !in_search_space(candidate, module) ||
      (max_configs > 0 && distinct_configs(candidate) > max_configs))
    return;
  if (!best || candidate.cost < best->cost - kRateEpsilon * std::max(1.0, best->cost)) best = std::move(candidate);
}

}  // namespace

std::string_view to_string(DummyMode mode) {
  switch (mode) {
    case DummyMode::Off:
      return "off";
    case DummyMode::Piccolo:
      return "piccolo";
    case DummyMode::Harpagon:
      return "harpagon";
    case DummyMode::Both:
      return "both";
  }
  return "?";
}

ModulePlan generate_config(const CostModule& module, double rate_rps, Duration budget, Dispatch dispatch) {
  std::vector<Tier> tiers;
  double rw = rate_rps;
  std::size_t k = 0;
  // A monotone walk: rw only shrinks, so a configuration that missed the budget never fits again.
  while (rw > kRateEpsilon * rate_rps) {
    if (k >= module.configs.size()) {
      ModulePlan failed = finish(module, std::move(tiers), rate_rps, budget, dispatch);
      failed.feasible = false;
      return failed;
    }
    const auto& c = module.configs[k];
    const double n = rw / c.throughput_rps;
    if (n >= 1 - kRateEpsilon) {
      const double m = whole(n);
      if (within(full_tier_latency(c, m, rw, dispatch), budget)) {
        tiers.push_back(Tier::whole(k, m));
        rw -= m * c.throughput_rps;
        continue;
      }
    } else if (within(c.duration + collection_time(c.batch, rw), budget)) {
      tiers.push_back(Tier::fraction(k, n));
      rw = 0;
      continue;
    }
    ++k;
  }
  return finish(module, std::move(tiers), rate_rps, budget, dispatch);
}

ModulePlan one_tuple(const CostModule& module, double rate_rps, Duration budget, Dispatch dispatch) {
  for (std::size_t k = 0; k < module.configs.size(); ++k)
    if (auto tiers = carry_alone(module, k, rate_rps, budget, dispatch))
      return finish(module, std::move(*tiers), rate_rps, budget, dispatch);
  return ModulePlan{};
}

ModulePlan two_tuple(const CostModule& module, double rate_rps, Duration budget, Dispatch dispatch) {
  // Two configurations may always be one: below a whole machine of the majority's rank the
  // digest's recipe would otherwise buy a small-batch machine that one configuration avoids.
  auto two = majority_and_residual(module, rate_rps, budget, dispatch);
  auto one = one_tuple(module, rate_rps, budget, dispatch);
  if (!two.feasible || (one.feasible && one.cost < two.cost - kRateEpsilon * std::max(1.0, two.cost))) return one;
  return two;
}

ModulePlan majority_and_residual(const CostModule& module, double rate_rps, Duration budget, Dispatch dispatch) {
  // Majority: the first configuration whose whole machines meet the budget.
  std::optional<std::size_t> majority;
  for (std::size_t k = 0; k < module.configs.size() && !majority; ++k) {
    const auto& c = module.configs[k];
    const double m = whole(rate_rps / c.throughput_rps);
    if (m >= 1 && within(full_tier_latency(c, m, rate_rps, dispatch), budget)) majority = k;
  }
  if (!majority) return one_tuple(module, rate_rps, budget, dispatch);
  const auto& c = module.configs[*majority];
  const double n = whole(rate_rps / c.throughput_rps);
  std::vector<Tier> tiers{Tier::whole(*majority, n)};
  const double residual = rate_rps - n * c.throughput_rps;
  if (residual <= kRateEpsilon * rate_rps) return finish(module, std::move(tiers), rate_rps, budget, dispatch);
  // Residual: the one configuration that carries all of it most cheaply.
  std::optional<std::vector<Tier>> best;
  double best_cost = 0;
  for (std::size_t k = 0; k < module.configs.size(); ++k) {
    auto rest = carry_alone(module, k, residual, budget, dispatch);
    if (!rest) continue;
    const double cost = fluid_cost(module.configs[k], residual);
    if (!best || cost < best_cost - kRateEpsilon * best_cost) {
      best = std::move(rest);
      best_cost = cost;
    }
  }
  if (!best) {
    ModulePlan failed = finish(module, std::move(tiers), rate_rps, budget, dispatch);
    failed.feasible = false;
    return failed;
  }
  tiers.insert(tiers.end(), best->begin(), best->end());
  return finish(module, std::move(tiers), rate_rps, budget, dispatch);
}

ModulePlan add_dummy(const CostModule& module, double rate_rps, Duration budget, const ModuleSchedulerOptions& options,
                     ModulePlan plan) {
  if (options.dummy == DummyMode::Off || !plan.feasible) return plan;
  const bool harpagon = options.dummy == DummyMode::Harpagon || options.dummy == DummyMode::Both;
  const bool piccolo = options.dummy == DummyMode::Piccolo || options.dummy == DummyMode::Both;
  std::optional<ModulePlan> best;
  const auto rerun = [&](double dummy) {
    auto p = options.max_configs == 1   ? one_tuple(module, rate_rps + dummy, budget, options.dispatch)
             : options.max_configs == 2 ? two_tuple(module, rate_rps + dummy, budget, options.dispatch)
                                        : generate_config(module, rate_rps + dummy, budget, options.dispatch);
    p.dummy_rps = dummy;
    keep_cheaper(best, std::move(p), module, options.max_configs);
  };
  const auto& tiers = plan.tiers;
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    double below = 0;  // u_i: the load on every tier ranked after i
    for (std::size_t j = i + 1; j < tiers.size(); ++j)
      below += tiers[j].rate_rps;
    const auto& c = module.configs[tiers[i].config];
    if (harpagon && !tiers[i].partial && below > kRateEpsilon * rate_rps) {
      // Theorem 2: the tail after tier i is less than one of its machines; one more replaces it.
      std::vector<Tier> padded(tiers.begin(), tiers.begin() + static_cast<std::ptrdiff_t>(i));
      padded.push_back(Tier::whole(tiers[i].config, tiers[i].machines + 1));
      keep_cheaper(best, finish(module, std::move(padded), rate_rps, budget, options.dispatch), module,
                   options.max_configs);
      if (options.dummy_rerun) rerun(c.throughput_rps - below);
    }
    if (piccolo && budget > c.duration) {
      // The least rate at which c alone meets the budget, less what is already below it.
      const double needed = c.batch / (budget - c.duration).to_s();
      if (needed <= c.throughput_rps * (1 + kRateEpsilon) && needed - below > kRateEpsilon * rate_rps)
        rerun(needed - below);
    }
  }
  if (best && best->cost < plan.cost - kRateEpsilon * std::max(1.0, plan.cost)) return std::move(*best);
  return plan;
}

namespace {

// The scheduler the options select, then the fallback.
ModulePlan schedule_selected(const CostModule& module, double rate_rps, Duration budget,
                             const ModuleSchedulerOptions& options) {
  ModulePlan plan = options.max_configs == 1   ? one_tuple(module, rate_rps, budget, options.dispatch)
                    : options.max_configs == 2 ? two_tuple(module, rate_rps, budget, options.dispatch)
                                               : generate_config(module, rate_rps, budget, options.dispatch);
  if (plan.feasible) return add_dummy(module, rate_rps, budget, options, std::move(plan));
  if (!options.fallback) return plan;
  // Round up to whole machines: one more machine on a tier already placed, or the whole rate on
  // one configuration. Padding only raises every tier's collection rate.
  std::optional<ModulePlan> best;
  const auto& placed = plan.tiers;
  for (std::size_t i = 0; i < placed.size(); ++i) {
    if (placed[i].partial) continue;
    std::vector<Tier> padded(placed.begin(), placed.begin() + static_cast<std::ptrdiff_t>(i));
    padded.push_back(Tier::whole(placed[i].config, placed[i].machines + 1));
    keep_cheaper(best, finish(module, std::move(padded), rate_rps, budget, options.dispatch), module,
                 options.max_configs);
  }
  for (std::size_t k = 0; k < module.configs.size(); ++k) {
    const double m = std::ceil(rate_rps / module.configs[k].throughput_rps - kRateEpsilon);
    keep_cheaper(best, finish(module, {Tier::whole(k, std::max(1.0, m))}, rate_rps, budget, options.dispatch), module,
                 options.max_configs);
  }
  if (!best) return plan;
  best->fallback = true;
  return std::move(*best);
}

}  // namespace

ModulePlan schedule_module(const CostModule& module, double rate_rps, Duration budget,
                           const ModuleSchedulerOptions& options) {
  auto plan = schedule_selected(module, rate_rps, budget, options);
  if (!options.each_alone || options.max_configs == 1) return plan;
  std::optional<ModulePlan> best;
  if (plan.feasible) best = plan;
  for (std::size_t k = 0; k < module.configs.size(); ++k) {
    // A configuration alone costs its fluid cost: skip what cannot beat the plan in hand.
    if (best && !(fluid_cost(module.configs[k], rate_rps) < best->cost * (1 - kRateEpsilon))) continue;
    if (auto tiers = carry_alone(module, k, rate_rps, budget, options.dispatch))
      keep_cheaper(best, finish(module, std::move(*tiers), rate_rps, budget, options.dispatch), module,
                   options.max_configs);
  }
  return best ? std::move(*best) : plan;
}

}  // namespace servescope::engine
