#include "engine/cost/runnable_cost_plan.h"

#include <algorithm>

#include "engine/cost/cost_presets.h"
#include "engine/cost/cost_scenario.h"
#include "model/core/error.h"

namespace servescope::engine {
namespace {

Dispatch dispatch_of(const CostPlanRecord& record) {
  for (const auto d : {Dispatch::ThroughputCost, Dispatch::RoundRobin, Dispatch::DirectThroughput})
    if (record.dispatch == to_string(d)) return d;
  if (!record.dispatch.empty())
    throw QueryError("cost plan of " + record.system + ": no dispatch rule '" + record.dispatch + "' (tc, rr or dt)");
  return Dispatch::ThroughputCost;  // plans from before the file named it were TC's
}

// The module's configurations: its tiers', then the profile's smaller batches on the same
// hardware and concurrency.
std::vector<CostConfig> configs_of(const CostModuleRecord& m, const Scenario& scenario) {
  std::vector<CostConfig> configs;
  const auto* profile = scenario.profiles.find(m.model);
  const auto add = [&](const std::string& gpu, int batch, int concurrency, Duration duration, double price) {
    const bool known = std::ranges::any_of(
        configs, [&](const CostConfig& c) { return c.hw == gpu && c.batch == batch && c.concurrency == concurrency; });
    if (!known) configs.push_back(make_cost_config(gpu, batch, concurrency, duration, price > 0 ? price : 1));
  };
  for (const auto& t : m.tiers) {
    const auto share = GpuShare::mps(t.concurrency);
    Duration duration = t.duration;
    if (duration <= Duration() && profile) duration = profile->latency({t.gpu, share, t.batch, std::nullopt});
    if (duration <= Duration())
      throw QueryError("module '" + m.id + "': the plan gives no batch duration for " + t.gpu + " and the scenario " +
                       "has no profile of " + m.model + " to time it");
    add(t.gpu, t.batch, t.concurrency, duration, t.price);
  }
  if (profile)
    for (const auto& t : m.tiers) {
      const auto share = GpuShare::mps(t.concurrency);
      if (profile->max_batch(t.gpu, share) < 1) continue;
      const int lo = std::max(1, profile->min_batch(t.gpu, share));
      for (const int b : planned_batches({}, profile->profiled_batches(t.gpu, share)))
        if (b >= lo && b < t.batch)
          add(t.gpu, b, t.concurrency, profile->latency({t.gpu, share, b, std::nullopt}), t.price);
    }
  return configs;
}

}  // namespace

CostPlan runnable_cost_plan(const CostPlanRecord& record, const Scenario& scenario) {
  if (!record.feasible) throw QueryError("cannot run an infeasible cost plan: " + record.reason);
  CostPlan plan;
  plan.system = record.system;
  plan.dispatch = dispatch_of(record);
  plan.feasible = true;
  plan.cost = record.total_cost;
  plan.e2e_wcl = record.e2e_wcl;
  auto& problem = plan.problem;
  problem.name = record.application;
  problem.slo = record.slo;
  for (const auto& m : record.modules) {
    CostModule module;
    module.id = m.id;
    ModulePlan mp;
    if (m.cpu) {
      module.fixed_latency = m.wcl;
    } else {
      if (m.tiers.empty()) throw QueryError("module '" + m.id + "' of the cost plan has no tiers to run on");
      module.model = m.model;
      module.rate_rps = m.rate_rps;
      module.configs = configs_of(m, scenario);
      sort_configs(module.configs, module.rate_rps);
      for (const auto& t : m.tiers) {
        const auto it = std::ranges::find_if(module.configs, [&](const CostConfig& c) {
          return c.hw == t.gpu && c.batch == t.batch && c.concurrency == t.concurrency;
        });
        const auto config = static_cast<std::size_t>(it - module.configs.begin());
        mp.tiers.push_back(t.partial ? Tier::fraction(config, t.machines) : Tier::whole(config, t.machines));
      }
      mp.dummy_rps = m.dummy_rps;
      mp.headroom_rps = m.headroom_rps;
      evaluate(mp, module, plan.dispatch);
      mp.feasible = true;
    }
    plan.latency.push_back(m.wcl);
    plan.budgets.push_back(m.budget);
    problem.modules.push_back(std::move(module));
    plan.modules.push_back(std::move(mp));
  }
  for (const auto& [from, to] : record.edges) {
    const auto index = [&](const std::string& id) {
      const auto it = std::ranges::find(problem.modules, id, &CostModule::id);
      if (it == problem.modules.end()) throw QueryError("an edge of the cost plan names no module '" + id + "'");
      return static_cast<std::size_t>(it - problem.modules.begin());
    };
    problem.edges.emplace_back(index(from), index(to));
  }
  validate(problem);
  return plan;
}

}  // namespace servescope::engine
