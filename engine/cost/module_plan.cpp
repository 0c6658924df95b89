#include "engine/cost/module_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace servescope::engine {

std::string_view to_string(Dispatch dispatch) {
  switch (dispatch) {
    case Dispatch::ThroughputCost:
      return "tc";
    case Dispatch::RoundRobin:
      return "rr";
    case Dispatch::DirectThroughput:
      return "dt";
  }
  return "?";
}

int ModulePlan::machines() const {
  int n = 0;
  for (const auto& t : tiers)
    n += static_cast<int>(std::ceil(t.machines - kRateEpsilon));
  return n;
}

double ModulePlan::served_rps() const {
  double total = 0;
  for (const auto& t : tiers)
    total += t.rate_rps;
  return total;
}

void evaluate(ModulePlan& plan, const CostModule& module, Dispatch dispatch) {
  auto& tiers = plan.tiers;
  const auto before = [](const Tier& a, const Tier& b) {
    return a.config != b.config ? a.config < b.config : (!a.partial && b.partial);
  };
  // Insertion sort: stable, and a plan has a few tiers (stable_sort allocated a buffer per call,
  // a sixth of the planners' time).
  for (std::size_t i = 1; i < tiers.size(); ++i)
    for (std::size_t j = i; j > 0 && before(tiers[j], tiers[j - 1]); --j)
      std::swap(tiers[j], tiers[j - 1]);
  double total = 0;
  plan.cost = 0;
  for (auto& t : tiers) {
    const auto& c = module.configs[t.config];
    t.rate_rps = t.machines * c.throughput_rps;
    total += t.rate_rps;
    plan.cost += t.machines * c.price;
  }
  double below = total;  // this tier and every tier ranked after it
  plan.wcl = Duration();
  for (auto& t : tiers) {
    const auto& c = module.configs[t.config];
    switch (dispatch) {
      case Dispatch::ThroughputCost:
        t.collect_rps = below;
        break;
      case Dispatch::RoundRobin:
        t.collect_rps = t.partial ? t.rate_rps : c.throughput_rps;
        break;
      case Dispatch::DirectThroughput:
        t.collect_rps = t.rate_rps;
        break;
    }
    below -= t.rate_rps;
    t.wcl = c.duration + collection_time(c.batch, t.collect_rps);
    plan.wcl = std::max(plan.wcl, t.wcl);
  }
}

Duration wcl_at_rate(const ModulePlan& plan, const CostModule& module, double rate_rps, Dispatch dispatch) {
  double planned = 0;
  for (const auto& t : plan.tiers)
    planned += t.machines * module.configs[t.config].throughput_rps;
  const double load = std::min(planned, rate_rps + plan.dummy_rps);
  Duration worst;
  double remaining = load;  // TC: this tier and every tier ranked after it
  for (const auto& t : plan.tiers) {
    const auto& c = module.configs[t.config];
    const double capacity = t.machines * c.throughput_rps;
    const double scale = planned > 0 ? load / planned : 0;
    double collect = 0;
    switch (dispatch) {
      case Dispatch::ThroughputCost:
        collect = remaining;
        remaining -= std::min(capacity, remaining);
        break;
      case Dispatch::RoundRobin:  // each machine collects its share of the spread
        collect = (t.partial ? capacity : c.throughput_rps) * scale;
        break;
      case Dispatch::DirectThroughput:
        collect = capacity * scale;
        break;
    }
    if (collect <= kRateEpsilon * std::max(1.0, load)) continue;
    worst = std::max(worst, c.duration + collection_time(c.batch, collect));
  }
  return worst;
}

bool in_search_space(const ModulePlan& plan, const CostModule& module) {
  for (std::size_t k = 0; k < plan.tiers.size(); ++k)
    if (plan.tiers[k].partial && k + 1 != plan.tiers.size()) return false;
  if (plan.dummy_rps > kRateEpsilon) {
    if (plan.tiers.empty() || plan.tiers.back().partial) return false;
    if (plan.dummy_rps >= module.configs[plan.tiers.back().config].throughput_rps * (1 - kRateEpsilon)) return false;
  }
  return true;
}

Duration fluid_latency(const CostConfig& config, double rate_rps, Dispatch dispatch) {
  const double collect = dispatch == Dispatch::RoundRobin ? std::min(config.throughput_rps, rate_rps) : rate_rps;
  return config.duration + collection_time(config.batch, collect);
}

int distinct_configs(const ModulePlan& plan) {
  std::vector<std::size_t> seen;
  for (const auto& t : plan.tiers)
    if (std::ranges::find(seen, t.config) == seen.end()) seen.push_back(t.config);
  return static_cast<int>(seen.size());
}

std::string describe(const ModulePlan& plan, const CostModule& module) {
  std::string out;
  for (const auto& t : plan.tiers) {
    const auto& c = module.configs[t.config];
    if (!out.empty()) out += " | ";
    char buf[96];
    if (t.partial)
      std::snprintf(buf, sizeof buf, "%s b%d%s×%.4g", c.hw.c_str(), c.batch,
                    c.concurrency > 1 ? ("s" + std::to_string(c.concurrency)).c_str() : "", t.machines);
    else
      std::snprintf(buf, sizeof buf, "%s b%d%s×%d", c.hw.c_str(), c.batch,
                    c.concurrency > 1 ? ("s" + std::to_string(c.concurrency)).c_str() : "",
                    static_cast<int>(std::lround(t.machines)));
    out += buf;
  }
  if (plan.dummy_rps > kRateEpsilon) {
    char buf[48];
    std::snprintf(buf, sizeof buf, " (+%.4g dummy/s)", plan.dummy_rps);
    out += buf;
  }
  return out;
}

}  // namespace servescope::engine
