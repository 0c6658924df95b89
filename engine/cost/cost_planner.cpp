#include "engine/cost/cost_planner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "engine/cost/frontier_scheduler.h"
#include "engine/cost/module_arrivals.h"
#include "engine/cost/quantized_split.h"
#include "model/core/error.h"

namespace servescope::engine {
namespace {

constexpr double kUnpriced = std::numeric_limits<double>::quiet_NaN();  // an option not yet priced

bool cheaper(double a, double b) {
  return a < b - kRateEpsilon * std::max(1.0, std::abs(b));
}

std::string list_of(const std::set<int>& values) {
  std::string out;
  for (const int v : values)
    out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

// Why a DNN module has nothing left in a preset's space: what its configurations offered and
// which rule of the space took it away (such a module was planned as a free step; docs/formats.md
// "Cost plans").
std::string nothing_left(const CostModule& m, const CostPlanOptions& o) {
  std::set<int> batches, concurrencies;
  for (const auto& c : m.configs) {
    batches.insert(c.batch);
    concurrencies.insert(c.concurrency);
  }
  std::string why = "module '" + m.id + "' (model " + m.model + ") has no configuration in " + o.system + "'s space: ";
  if (!o.spatial && !concurrencies.contains(1))
    return why + "it is profiled only at MPS shares (concurrency " + list_of(concurrencies) + "), and " + o.system +
           " plans concurrency 1 (whole GPUs) only";
  if (!o.batching && !batches.contains(1))
    return why + "its profiles start at batch " + std::to_string(*batches.begin()) + ", and " + o.system +
           " plans batch 1 only";
  return why + "batch 1 on a whole GPU is needed and its configurations are batches " + list_of(batches) +
         " at concurrency " + list_of(concurrencies);
}

// The configuration space the preset allows: batch 1 only, concurrency 1 only, one price class.
CostProblem restrict(const CostProblem& problem, const CostPlanOptions& o, std::string* refusal) {
  CostProblem out = problem;
  for (auto& m : out.modules) {
    if (m.is_fixed()) continue;
    const CostModule before = m;
    std::erase_if(m.configs, [&](const CostConfig& c) {
      return (!o.batching && c.batch != 1) || (!o.spatial && c.concurrency != 1);
    });
    if (m.configs.empty()) {
      if (refusal && refusal->empty()) *refusal = nothing_left(before, o);
      continue;
    }
    if (o.hardware == HardwareChoice::Cheapest || o.hardware == HardwareChoice::Priciest) {
      // The module's cheapest (priciest) hardware type; ties by id.
      const auto pick = std::ranges::min_element(m.configs, [&](const CostConfig& a, const CostConfig& b) {
        if (a.price != b.price) return o.hardware == HardwareChoice::Cheapest ? a.price < b.price : a.price > b.price;
        return a.hw < b.hw;
      });
      const std::string hw = pick->hw;
      std::erase_if(m.configs, [&](const CostConfig& c) { return c.hw != hw; });
    }
    sort_configs(m.configs, m.rate_rps);
  }
  return out;
}

class Pipeline {
 public:
  Pipeline(const CostProblem& problem, const CostPlanOptions& options, std::string refusal = {})
      : p_(problem),
        o_(options),
        dag_(problem),
        refusal_(std::move(refusal)),
        scheduler_(problem.slo, options.module) {}

  CostPlan run() {
    std::optional<CostPlan> best;
    std::string reason = "no module budgets could be scheduled";
    std::set<std::vector<Duration>> tried;  // split variants often agree
    const auto consider = [&](std::vector<Duration> budgets, const std::vector<SplitStep>& trace) {
      if (!tried.insert(budgets).second) return;
      auto plan = realise(std::move(budgets));
      if (!plan.feasible) {
        reason = plan.reason;
        return;
      }
      plan.trace = trace;
      if (!best || cheaper(plan.cost, best->cost)) best = std::move(plan);
    };
    if (!refusal_.empty()) return unplannable(refusal_);
    for (const auto& module : p_.modules)
      if (!module.is_fixed() && module.configs.empty())
        return unplannable("module '" + module.id + "' has no configuration left under " + o_.system);
    switch (o_.split) {
      case SplitMethod::Even:
        consider(even_budgets(), {});
        break;
      case SplitMethod::Quantized: {
        auto split = quantized_split(dag_, p_.slo, o_.quantum, [&](std::size_t m, Duration budget) {
          return module_cost(p_.modules[m], p_.modules[m].rate_rps, budget);
        });
        if (!split.refusal.empty()) return infeasible(o_.system + ": " + split.refusal);
        if (split.budgets.empty()) return infeasible("no quantized budget split fits the SLO");
        consider(std::move(split.budgets), {});
        break;
      }
      case SplitMethod::LatencyCost:
      case SplitMethod::Throughput: {
        // The exchange trades real costs: a fluid price does not see that a short budget pads
        // a tier to whole machines, which is exactly the trade it is for. Its options extend the
        // split's, so a choice of the split is one of the exchange.
        OptionConfigs configs;
        SplitInput exchange;
        SplitInput* want = o_.pair_exchange ? &exchange : nullptr;
        auto input = split_input(false, configs, want);
        if (critical_path(input, input.start) > p_.slo + kLatencyTolerance) input = split_input(true, configs, want);
        const auto score = o_.split == SplitMethod::LatencyCost ? SplitScore::LatencyCost : SplitScore::Throughput;
        std::vector<bool> merges{false};
        std::vector<bool> plannable(p_.modules.size());
        for (std::size_t m = 0; m < plannable.size(); ++m)
          plannable[m] = !p_.modules[m].is_fixed();
        if (o_.node_merger && !sibling_classes(dag_, plannable).empty()) merges.push_back(true);
        for (const bool merge : merges) {
          const auto done = split_latency(input, score, merge);
          if (!done.feasible)
            return infeasible("the fastest configuration of every module already takes " +
                              std::to_string(critical_path(input, input.start).to_ms()) +
                              " ms on the critical path, above the SLO of " + std::to_string(p_.slo.to_ms()) + " ms");
          std::vector<std::vector<std::size_t>> choices{done.choice};
          if (o_.cost_direct_rounds > 0)
            for (auto& choice : cost_direct(input, done, o_.cost_direct_rounds, merge))
              choices.push_back(std::move(choice));
          const auto trace = trace_of(input, input.start, done.history, configs);
          for (auto& choice : choices) {
            consider(budgets_of(input, choice), trace);
            if (!o_.pair_exchange) continue;
            const auto before = choice;
            const auto traded = exchange_pairs(exchange, choice);
            if (traded.empty()) continue;
            auto longer = trace;
            for (auto& step : trace_of(exchange, before, traded, configs))
              longer.push_back(step);
            consider(budgets_of(exchange, choice), longer);
          }
        }
        break;
      }
    }
    if (!best) return infeasible(reason);
    best->problem = p_;
    return std::move(*best);
  }

 private:
  ModulePlan schedule(const CostModule& m, double rate, Duration budget) const {
    return scheduler_.schedule(m, rate, budget);
  }

  double module_cost(const CostModule& m, double rate, Duration budget) const {
    if (m.is_fixed()) return m.fixed_latency <= budget + kLatencyTolerance ? 0.0 : kInfiniteCost;
    const auto plan = schedule(m, rate, budget);
    return plan.feasible ? plan.cost : kInfiniteCost;
  }

  CostPlan infeasible(std::string why) const {
    CostPlan plan;
    plan.system = o_.system;
    plan.dispatch = o_.module.dispatch;
    plan.problem = p_;
    plan.reason = std::move(why);
    return plan;
  }
  CostPlan unplannable(std::string why) const {
    auto plan = infeasible(std::move(why));
    plan.unplannable = true;
    return plan;
  }

  // Per module, the configuration each split option runs: with padded options there are more
  // options than configurations, so an option index is not a configuration index.
  using OptionConfigs = std::vector<std::vector<std::size_t>>;

  // The split's options for every module: each configuration at its fluid latency, and, with
  // `padded_options`, padded to whole machines, priced as the preset says. `exchange`, when
  // given, gets the same options priced by the module scheduler, followed by the residual tiers'
  // latencies; `configs` maps those longer lists.
  SplitInput split_input(bool padded_options, OptionConfigs& configs, SplitInput* exchange = nullptr) const {
    configs.assign(p_.modules.size(), {});
    SplitInput in;
    in.dag = &dag_;
    in.slo = p_.slo;
    if (exchange) *exchange = in;
    const bool fluid_pricing = o_.split_cost == SplitCostMode::Fluid;
    for (std::size_t index = 0; index < p_.modules.size(); ++index) {
      const auto& m = p_.modules[index];
      std::vector<SplitOption> opts, sched, extra;
      std::vector<std::size_t> extra_configs;
      std::vector<double> fluid;  // each option's fluid cost, for ties
      std::set<Duration> seen;
      // An option at `lat` running configuration k, collecting at `collect_rps` in the fluid
      // model. Unschedulable ones are left out unless `always`. `exchange_only` ones go to the
      // end of the exchange's list, after every option of the split.
      // Under fluid pricing the exchange's prices wait for price_by_latency, which skips the
      // options a faster one already makes pointless.
      const auto add = [&](std::size_t k, Duration lat, double collect_rps, bool always, bool exchange_only = false) {
        const auto& c = m.configs[k];
        const bool later = fluid_pricing && exchange && (always || exchange_only);
        double cost = kInfiniteCost;
        if (later)
          cost = kUnpriced;
        else if (!always || !fluid_pricing)
          cost = module_cost(m, m.rate_rps, lat);
        if (!later && !always && cost >= kInfiniteCost) return;
        seen.insert(lat);
        if (exchange_only) {
          extra.push_back({lat, cost, c.ratio()});
          extra_configs.push_back(k);
          return;
        }
        sched.push_back({lat, cost, c.ratio()});
        configs[index].push_back(k);
        opts.push_back({lat, fluid_pricing ? fluid_cost(c, collect_rps) : cost, c.ratio()});
        fluid.push_back(fluid_cost(c, collect_rps));
      };
      if (m.is_fixed()) {
        opts.push_back({m.fixed_latency, 0, 0});
        sched.push_back(opts.back());
        fluid.push_back(0);
        configs[index].push_back(0);
      } else {
        for (std::size_t k = 0; k < m.configs.size(); ++k) {
          const auto& c = m.configs[k];
          const Duration lat = fluid_latency(c, m.rate_rps, o_.module.dispatch);
          add(k, lat, m.rate_rps, true);
          // Padded with dummy requests (Piccolo §3.5, Harpagon Theorem 2) or rounded up to whole
          // machines (the fallback), a tier collects its batches at the throughput of its whole
          // machines, not at the module's lower rate: a faster option than the rate alone
          // allows. Without it the split started slower than plans that exist, and refused
          // workloads the brute force plans (docs/reproduction/cost.md "The audit").
          // The papers' split gets them only when the rate alone cannot make the SLO (where it
          // can, they tempted the throughput split into dearer plans); the exchange always.
          if ((!padded_options && !exchange) || (o_.module.dummy == DummyMode::Off && !o_.module.fallback)) continue;
          const double whole_machines = std::ceil(m.rate_rps / c.throughput_rps * (1 - kRateEpsilon));
          const double padded_rps = std::max(1.0, whole_machines) * c.throughput_rps;
          const Duration padded = c.duration + collection_time(c.batch, padded_rps);
          if (padded < lat) add(k, padded, padded_rps, false, !padded_options);
        }
        // Where a majority tier of whole machines leaves a residual rate, the residual tier's
        // latency is a step of the module's cost curve that no configuration's fluid latency
        // marks (docs/reproduction/cost.md "Beyond the papers": one whole machine and a third of
        // another, 55 ms, was never offered). Only the pair exchange gets them; the papers' split
        // works on the configurations alone (and its sibling moves grow with the square of the
        // options).
        if (exchange)
          for (std::size_t k = 0; k < m.configs.size(); ++k) {
            const auto& c = m.configs[k];
            const double whole = std::floor(m.rate_rps / c.throughput_rps * (1 + kRateEpsilon));
            const double residual = m.rate_rps - whole * c.throughput_rps;
            if (whole < 1 || residual <= kRateEpsilon * m.rate_rps) continue;
            const Duration lat = c.duration + collection_time(c.batch, residual);
            if (!seen.contains(lat)) add(k, lat, m.rate_rps, false, true);
          }
        // With the exact scheduler every step of the module's cost curve is a point of its
        // frontier, the ones above among them: offer the exchange all of them.
        if (exchange)
          for (const auto& [lat, k] : scheduler_.steps(m, m.rate_rps))
            if (lat <= p_.slo + kLatencyTolerance && !seen.contains(lat)) add(k, lat, m.rate_rps, false, true);
        sched.insert(sched.end(), extra.begin(), extra.end());
        configs[index].insert(configs[index].end(), extra_configs.begin(), extra_configs.end());
        if (fluid_pricing && exchange) price_by_latency(m, sched);
      }
      // Start on the fastest option, the more expensive on a tie (Piccolo digest gap G6).
      std::size_t start = 0;
      for (std::size_t k = 1; k < opts.size(); ++k)
        if (opts[k].latency < opts[start].latency ||
            (opts[k].latency == opts[start].latency && fluid[k] > fluid[start]))
          start = k;
      in.options.push_back(std::move(opts));
      in.start.push_back(start);
      if (exchange) {
        exchange->options.push_back(std::move(sched));
        exchange->start.push_back(start);
      }
    }
    return in;
  }

  // Prices the exchange's unpriced options, fastest first. No plan of the module costs less than
  // its cheapest fluid cost, so once a faster option reaches it, every slower one is worth no
  // more than that and is not scheduled (on 96-configuration modules this halves Piccolo's time).
  void price_by_latency(const CostModule& m, std::vector<SplitOption>& options) const {
    double floor = kInfiniteCost;
    for (const auto& c : m.configs)
      floor = std::min(floor, fluid_cost(c, m.rate_rps));
    std::vector<std::size_t> order(options.size());
    for (std::size_t k = 0; k < order.size(); ++k)
      order[k] = k;
    std::ranges::stable_sort(order,
                             [&](std::size_t a, std::size_t b) { return options[a].latency < options[b].latency; });
    double cheapest = kInfiniteCost;
    for (const auto k : order) {
      auto& o = options[k];
      if (std::isnan(o.cost))
        o.cost = cheapest <= floor * (1 + kRateEpsilon) ? cheapest : module_cost(m, m.rate_rps, o.latency);
      cheapest = std::min(cheapest, o.cost);
    }
  }

  // The split's moves, in configurations (SplitStep's from and to index the module's configs).
  std::vector<SplitStep> trace_of(const SplitInput& input, std::vector<std::size_t> choice,
                                  const std::vector<SplitMove>& history, const OptionConfigs& configs) const {
    std::vector<SplitStep> out;
    for (const auto& mv : history) {
      const auto before = choice;
      for (const auto& [m, c] : mv.changes)
        choice[m] = c;
      const Duration e2e = critical_path(input, choice);
      for (const auto& [m, c] : mv.changes)
        out.push_back({m, configs[m][before[m]], configs[m][c], mv.lc, e2e});
    }
    return out;
  }

  std::vector<Duration> budgets_of(const SplitInput& input, const std::vector<std::size_t>& choice) const {
    std::vector<Duration> budgets(choice.size());
    for (std::size_t m = 0; m < choice.size(); ++m)
      budgets[m] = input.options[m][choice[m]].latency;
    if (o_.stretch_budgets) {
      const Duration e2e = dag_.longest_path(budgets);
      if (e2e > Duration())
        for (std::size_t m = 0; m < budgets.size(); ++m)
          if (!p_.modules[m].is_fixed()) budgets[m] = Duration::from_s(budgets[m].to_s() * p_.slo.to_s() / e2e.to_s());
    }
    return budgets;
  }

  std::vector<Duration> even_budgets() const {
    std::vector<bool> dnn(p_.modules.size());
    std::vector<Duration> fixed(p_.modules.size());
    for (std::size_t m = 0; m < dnn.size(); ++m) {
      dnn[m] = !p_.modules[m].is_fixed();
      fixed[m] = p_.modules[m].fixed_latency;
    }
    const int depth = std::max(1, dag_.deepest(dnn));
    const Duration share = Duration::nanoseconds((p_.slo - dag_.longest_path(fixed)).count_ns() / depth);
    std::vector<Duration> budgets(dnn.size());
    for (std::size_t m = 0; m < dnn.size(); ++m)
      budgets[m] = dnn[m] ? share : fixed[m];
    return budgets;
  }

  // Schedules every module under its budget, hands out leftover latency and checks the result.
  CostPlan realise(std::vector<Duration> budgets) {
    CostPlan plan;
    plan.system = o_.system;
    plan.dispatch = o_.module.dispatch;
    plan.modules.resize(p_.modules.size());
    for (std::size_t m = 0; m < p_.modules.size(); ++m) {
      const auto& mod = p_.modules[m];
      if (mod.is_fixed()) continue;
      plan.modules[m] = schedule(mod, mod.rate_rps, budgets[m]);
      if (!plan.modules[m].feasible) {
        plan.reason = "module '" + mod.id + "' cannot serve " + std::to_string(mod.rate_rps) + " req/s within " +
                      std::to_string(budgets[m].to_ms()) + " ms on any configuration";
        return plan;
      }
    }
    if (o_.reassign != ReassignMode::None) plan.reassignments = reassign(plan.modules);
    complete_plan(plan, p_, dag_);
    return plan;
  }

  std::vector<Duration> latencies(const std::vector<ModulePlan>& plans) const {
    std::vector<Duration> lat(p_.modules.size());
    for (std::size_t m = 0; m < lat.size(); ++m)
      lat[m] = p_.modules[m].is_fixed() ? p_.modules[m].fixed_latency : plans[m].wcl;
    return lat;
  }

  // Harpagon §2.6: give each module's path slack to its residual tiers (or re-plan it whole at
  // the larger budget) while that saves cost, the largest saving first.
  int reassign(std::vector<ModulePlan>& plans) const {
    int count = 0;
    for (;;) {
      const auto lat = latencies(plans);
      const auto through = dag_.longest_through(lat);
      std::optional<std::pair<std::size_t, ModulePlan>> best;
      double best_gain = 0;
      for (std::size_t m = 0; m < plans.size(); ++m) {
        const auto& mod = p_.modules[m];
        if (mod.is_fixed() || through[m] >= p_.slo) continue;
        const Duration budget = lat[m] + (p_.slo - through[m]);
        const auto& cur = plans[m];
        std::vector<ModulePlan> cands;
        const Tier majority = cur.tiers.front();
        const double residual = mod.rate_rps - majority.machines * mod.configs[majority.config].throughput_rps;
        // The exact scheduler's plan at the full rate is already the cheapest of the space,
        // the majority-and-residual one included.
        if (!scheduler_.exact() && !majority.partial && residual > kRateEpsilon * mod.rate_rps) {
          auto rest = schedule(mod, residual, budget);
          if (rest.feasible) {
            ModulePlan joined;
            joined.tiers = rest.tiers;
            joined.tiers.insert(joined.tiers.begin(), majority);
            evaluate(joined, mod, o_.module.dispatch);
            joined.dummy_rps = std::max(0.0, joined.served_rps() - mod.rate_rps);
            if (joined.dummy_rps <= kRateEpsilon * mod.rate_rps) joined.dummy_rps = 0;
            joined.feasible = joined.wcl <= budget + kLatencyTolerance;
            joined.fallback = rest.fallback;
            cands.push_back(std::move(joined));
          }
        }
        cands.push_back(schedule(mod, mod.rate_rps, budget));
        for (auto& c : cands) {
          if (!c.feasible || !in_search_space(c, mod)) continue;
          if (o_.module.max_configs > 0 && distinct_configs(c) > o_.module.max_configs) continue;
          const double gain = cur.cost - c.cost;
          if (gain > kRateEpsilon * std::max(1.0, cur.cost) && gain > best_gain) {
            best_gain = gain;
            best.emplace(m, std::move(c));
          }
        }
      }
      if (!best) return count;
      plans[best->first] = std::move(best->second);
      ++count;
      if (o_.reassign == ReassignMode::One) return count;
    }
  }

  const CostProblem& p_;
  const CostPlanOptions& o_;
  CostDag dag_;
  std::string refusal_;                        // why the space leaves a module nothing, found when it was restricted
  mutable SelectedModuleScheduler scheduler_;  // caches frontiers: pricing an option changes no plan
};

}  // namespace

namespace {

CostPlan plan_for_rates(const CostProblem& problem, const CostPlanOptions& options) {
  if (options.hardware != HardwareChoice::BestSingle) {
    std::string refusal;
    const auto restricted = restrict(problem, options, &refusal);
    return Pipeline(restricted, options, refusal).run();
  }
  // One hardware type for the whole application: try each, keep the cheapest. A type on which a
  // module has no profile cannot be that type.
  std::set<std::string> types;
  for (const auto& m : problem.modules)
    for (const auto& c : m.configs)
      types.insert(c.hw);
  std::optional<CostPlan> best;
  CostPlan last;
  std::string missing;
  for (const auto& hw : types) {
    CostProblem one = problem;
    std::string lacking;
    for (auto& m : one.modules) {
      if (m.is_fixed()) continue;
      std::erase_if(m.configs, [&](const CostConfig& c) { return c.hw != hw; });
      if (m.configs.empty()) lacking += (lacking.empty() ? "" : ", ") + ("'" + m.id + "'");
    }
    if (!lacking.empty()) {
      missing += (missing.empty() ? "" : "; ") + hw + " has no profile for module " + lacking;
      continue;
    }
    std::string refusal;
    const auto restricted = restrict(one, options, &refusal);
    auto plan = Pipeline(restricted, options, refusal).run();
    if (plan.feasible && (!best || cheaper(plan.cost, best->cost)))
      best = std::move(plan);
    else if (!plan.feasible)
      last = std::move(plan);
  }
  if (best) return std::move(*best);
  last.system = options.system;
  last.feasible = false;
  if (last.reason.empty()) {
    last.reason =
        options.system + " runs the whole application on one GPU type, and no type serves every module: " + missing;
    last.unplannable = true;
  }
  return last;
}

}  // namespace

void serve_real_rates(CostPlan& plan, const CostProblem& real, const CostProblem& padded) {
  for (std::size_t m = 0; m < real.modules.size(); ++m) {
    const double rate = real.modules[m].rate_rps;
    plan.problem.modules[m].rate_rps = rate;
    if (real.modules[m].is_fixed()) continue;
    plan.modules[m].headroom_rps = padded.modules[m].rate_rps - rate;
  }
}

CostPlan plan_cost(const CostProblem& problem, const CostPlanOptions& options) {
  validate(problem);
  auto plan = plan_for_rates(problem, options);
  bool headroom = false;
  for (std::size_t m = 0; m < problem.modules.size(); ++m)
    headroom = headroom || options.burst_z_of(m) > 0;
  if (!headroom || !plan.feasible) return plan;
  // Burst headroom: a module must absorb the arrivals of its busiest budget-long window. Arrivals
  // come in bursts of B (1 at a Poisson source; a parent's whole batch, times the fan-out, below
  // it), so the count over τ has variance T·τ·B and the module is planned for T + z·sqrt(T·B/τ).
  // Budgets and batches depend on the plan, so iterate to a fixed point (two or three rounds).
  const CostDag dag(problem);
  for (int round = 0; round < 4; ++round) {
    const auto arrivals = module_arrivals(problem, dag, plan);
    CostProblem padded = problem;
    for (std::size_t m = 0; m < padded.modules.size(); ++m) {
      auto& mod = padded.modules[m];
      if (mod.is_fixed()) continue;
      const double tau = std::max(1e-6, plan.budgets[m].to_s());
      mod.rate_rps += options.burst_z_of(m) * std::sqrt(mod.rate_rps * arrivals[m].burst / tau);
    }
    auto next = plan_for_rates(padded, options);
    if (!next.feasible) return next;
    const bool settled = std::abs(next.cost - plan.cost) <= kRateEpsilon * std::max(1.0, plan.cost) && round > 0;
    plan = std::move(next);
    serve_real_rates(plan, problem, padded);
    if (settled) break;
  }
  return plan;
}

}  // namespace servescope::engine
