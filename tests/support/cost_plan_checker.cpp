#include "tests/support/cost_plan_checker.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace servescope::test {
namespace {

using engine::CostConfig;
using engine::Dispatch;

bool same_config(const CostConfig& a, const CostConfig& b) {
  return a.hw == b.hw && a.batch == b.batch && a.concurrency == b.concurrency && a.duration == b.duration &&
         std::abs(a.price - b.price) <= 1e-12 * std::max(1.0, a.price);
}

// Longest path over `w` by repeated relaxation (deliberately not the engine's topological DP).
double longest(const engine::CostProblem& p, const std::vector<double>& w) {
  std::vector<double> finish = w;
  for (std::size_t round = 0; round < p.modules.size(); ++round)
    for (const auto& [a, b] : p.edges)
      finish[b] = std::max(finish[b], finish[a] + w[b]);
  return *std::ranges::max_element(finish);
}

}  // namespace

std::vector<std::string> check_cost_plan(const engine::CostProblem& original, const engine::CostPlan& plan) {
  std::vector<std::string> bad;
  const auto say = [&](const std::string& what) { bad.push_back(what); };
  if (!plan.feasible) return {"plan is not feasible: " + plan.reason};
  const auto& p = plan.problem;
  if (p.modules.size() != original.modules.size() || plan.modules.size() != original.modules.size())
    return {"module count differs from the problem's"};
  std::vector<double> latency_s(p.modules.size());
  double total_cost = 0;
  for (std::size_t m = 0; m < p.modules.size(); ++m) {
    const auto& om = original.modules[m];
    const auto& mp = plan.modules[m];
    const std::string where = "module " + om.id + ": ";
    if (om.is_fixed()) {
      latency_s[m] = om.fixed_latency.to_s();
      if (!mp.tiers.empty()) say(where + "a fixed step has machines");
      continue;
    }
    if (mp.tiers.empty()) {
      say(where + "no machines");
      continue;
    }
    struct Row {
      CostConfig c;
      std::size_t index;
      double machines;
      bool partial;
    };
    std::vector<Row> rows;
    for (const auto& t : mp.tiers) {
      if (t.config >= p.modules[m].configs.size()) {
        say(where + "tier names an unknown configuration");
        continue;
      }
      const auto& c = p.modules[m].configs[t.config];
      if (std::ranges::none_of(om.configs, [&](const CostConfig& o) { return same_config(o, c); }))
        say(where + "configuration " + c.hw + " b" + std::to_string(c.batch) + " is not offered");
      if (t.partial && !(t.machines > 0 && t.machines < 1 + 1e-9)) say(where + "partial machine outside (0, 1]");
      if (!t.partial && (t.machines < 1 || std::abs(t.machines - std::round(t.machines)) > 1e-9))
        say(where + "a full tier with a fractional machine count");
      rows.push_back({c, t.config, t.machines, t.partial});
    }
    // Dispatch order: configuration rank, full machines before the partial one.
    std::ranges::stable_sort(rows, [](const Row& a, const Row& b) {
      return a.index != b.index ? a.index < b.index : (!a.partial && b.partial);
    });
    double served = 0, cost = 0;
    for (const auto& r : rows) {
      served += r.machines * r.c.batch * r.c.concurrency / r.c.duration.to_s();
      cost += r.machines * r.c.price;
    }
    if (served < om.rate_rps * (1 - 1e-9)) say(where + "serves less than its rate");
    if (std::abs(served - om.rate_rps - mp.dummy_rps - mp.headroom_rps) > 1e-6 * std::max(1.0, served))
      say(where + "dummy rate and headroom do not account for the padding");
    double below = served, worst = 0;
    for (const auto& r : rows) {
      const double t = r.c.batch * r.c.concurrency / r.c.duration.to_s();
      const double f = r.machines * t;
      double collect = below;
      if (plan.dispatch == Dispatch::RoundRobin) collect = r.partial ? f : t;
      if (plan.dispatch == Dispatch::DirectThroughput) collect = f;
      worst = std::max(worst, r.c.duration.to_s() + r.c.batch / collect);
      below -= f;
    }
    if (std::abs(worst - mp.wcl.to_s()) > 1e-6) {
      std::ostringstream os;
      os << where << "recorded WCL " << mp.wcl.to_s() << " s, recomputed " << worst << " s";
      say(os.str());
    }
    if (std::abs(cost - mp.cost) > 1e-6 * std::max(1.0, cost)) say(where + "cost does not add up");
    if (plan.budgets.size() == p.modules.size() && plan.budgets[m].to_s() < worst - 1e-9)
      say(where + "budget below its latency");
    latency_s[m] = worst;
    total_cost += cost;
  }
  if (std::abs(total_cost - plan.cost) > 1e-6 * std::max(1.0, total_cost)) say("total cost does not add up");
  const double e2e = longest(original, latency_s);
  if (e2e > original.slo.to_s() + 1e-9) say("critical path " + std::to_string(e2e) + " s exceeds the SLO");
  if (plan.budgets.size() == p.modules.size()) {
    std::vector<double> b(p.modules.size());
    for (std::size_t m = 0; m < b.size(); ++m)
      b[m] = plan.budgets[m].to_s();
    if (longest(original, b) > original.slo.to_s() + 1e-6) say("budgets add up to more than the SLO on a path");
  } else {
    say("budgets missing");
  }
  return bad;
}

}  // namespace servescope::test
