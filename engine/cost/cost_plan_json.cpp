#include "engine/cost/cost_plan_json.h"

#include <cmath>

namespace servescope::engine {
namespace {

double us(Duration d) {
  return d.to_us();
}

}  // namespace

nlohmann::json cost_plan_to_json(const CostPlan& plan, const std::string& scenario_name) {
  nlohmann::json j = {{"schema_version", 1},
                      {"kind", "cost-plan"},
                      {"scenario", scenario_name},
                      {"system", plan.system},
                      {"application", plan.problem.name},
                      {"dispatch", std::string(to_string(plan.dispatch))},
                      {"feasible", plan.feasible},
                      {"slo_us", us(plan.problem.slo)}};
  if (!plan.feasible) {
    j["reason"] = plan.reason;
    return j;
  }
  j["total_cost"] = plan.cost;
  j["machines"] = plan.machines();
  j["dummy_rps"] = plan.dummy_rps();
  j["e2e_wcl_us"] = us(plan.e2e_wcl);
  const auto at_rates = plan.latency_at_rates();
  j["e2e_wcl_at_rate_us"] = us(plan.e2e_wcl_at_rates());
  j["reassignments"] = plan.reassignments;
  nlohmann::json modules = nlohmann::json::array();
  for (std::size_t m = 0; m < plan.modules.size(); ++m) {
    const auto& mod = plan.problem.modules[m];
    const auto& mp = plan.modules[m];
    nlohmann::json e = {{"id", mod.id},
                        {"budget_us", us(plan.budgets[m])},
                        {"wcl_us", us(plan.latency[m])},
                        {"wcl_at_rate_us", us(at_rates[m])}};
    if (mod.is_fixed()) {
      e["kind"] = "cpu";
      modules.push_back(std::move(e));
      continue;
    }
    e["kind"] = "dnn";
    e["model"] = mod.model;
    e["rate_rps"] = mod.rate_rps;
    e["dummy_rps"] = mp.dummy_rps;
    e["headroom_rps"] = mp.headroom_rps;
    e["cost"] = mp.cost;
    e["machines"] = mp.machines();
    e["fallback"] = mp.fallback;
    nlohmann::json tiers = nlohmann::json::array();
    for (const auto& t : mp.tiers) {
      const auto& c = mod.configs[t.config];
      tiers.push_back({{"gpu", c.hw},
                       {"batch", c.batch},
                       {"concurrency", c.concurrency},
                       {"duration_us", us(c.duration)},
                       {"price", c.price},
                       {"machines", t.machines},
                       {"partial", t.partial},
                       {"rate_rps", t.rate_rps},
                       {"collect_rps", t.collect_rps},
                       {"wcl_us", us(t.wcl)}});
    }
    e["tiers"] = std::move(tiers);
    modules.push_back(std::move(e));
  }
  j["modules"] = std::move(modules);
  nlohmann::json edges = nlohmann::json::array();
  for (const auto& [from, to] : plan.problem.edges)
    edges.push_back({plan.problem.modules[from].id, plan.problem.modules[to].id});
  j["edges"] = std::move(edges);
  nlohmann::json trace = nlohmann::json::array();
  for (const auto& step : plan.trace) {
    const auto& cs = plan.problem.modules[step.module].configs;
    const auto name = [&](std::size_t k) {
      return cs[k].hw + " b" + std::to_string(cs[k].batch) + " s" + std::to_string(cs[k].concurrency);
    };
    trace.push_back({{"module", plan.problem.modules[step.module].id},
                     {"from", name(step.from)},
                     {"to", name(step.to)},
                     {"lc", std::isinf(step.lc) ? nlohmann::json("inf") : nlohmann::json(step.lc)},
                     {"e2e_us", us(step.e2e)}});
  }
  j["split_trace"] = std::move(trace);
  return j;
}

}  // namespace servescope::engine
