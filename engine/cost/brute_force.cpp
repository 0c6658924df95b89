#include "engine/cost/brute_force.h"

#include <algorithm>
#include <cmath>

#include "engine/cost/module_scheduler.h"

namespace servescope::engine {
namespace {

class FrontierSearch {
 public:
  FrontierSearch(const CostModule& module, Duration limit, BruteForceStats& stats, std::uint64_t max_nodes,
                 bool padding)
      : m_(module), limit_(limit), stats_(stats), max_nodes_(max_nodes), padding_(padding) {
    const auto& cs = m_.configs;
    unit_cost_.assign(cs.size() + 1, kInfiniteCost);
    for (std::size_t i = cs.size(); i-- > 0;) {
      unit_cost_[i] = std::min(unit_cost_[i + 1], cs[i].price / cs[i].throughput_rps);
      max_padding_ = std::max(max_padding_, cs[i].throughput_rps);
    }
  }

  std::vector<FrontierPoint> run() {
    // Seed the frontier with the greedy scheduler's plans at every configuration's fluid latency:
    // valid plans of the same space, so the search below can prune against them from the start.
    ModuleSchedulerOptions greedy;
    if (!padding_) {
      greedy.dummy = DummyMode::Off;
      greedy.fallback = false;
    }
    for (const auto& c : m_.configs) {
      const Duration budget = fluid_latency(c, m_.rate_rps, Dispatch::ThroughputCost);
      if (budget > limit_ + kLatencyTolerance) continue;
      const auto plan = schedule_module(m_, m_.rate_rps, budget, greedy);
      if (plan.feasible && in_search_space(plan, m_) && (padding_ || plan.dummy_rps == 0)) emit(plan.tiers, Duration());
    }
    std::vector<Tier> tiers;
    dfs(0, m_.rate_rps, tiers, Duration(), 0.0);
    return std::move(front_);
  }

 private:
  bool eps_zero(double rate) const { return rate <= kRateEpsilon * m_.rate_rps; }

  // The cheapest known plan no slower than `latency`.
  double cheapest_within(Duration latency) const {
    const auto it = std::ranges::upper_bound(front_, latency, {}, &FrontierPoint::latency);
    return it == front_.begin() ? kInfiniteCost : std::prev(it)->cost;
  }

  // `latency_floor` bounds the plan's latency from below: a plan no cheaper than the best point
  // that fast is dominated, which settles most candidates before evaluate() (the planners run this
  // search for every module they plan, so it is their hot loop).
  void emit(const std::vector<Tier>& tiers, Duration latency_floor) {
    double cost = 0;
    for (const auto& t : tiers)
      cost += t.machines * m_.configs[t.config].price;
    if (cheapest_within(latency_floor) <= cost * (1 + kRateEpsilon)) return;
    ModulePlan plan;
    plan.tiers = tiers;
    evaluate(plan, m_, Dispatch::ThroughputCost);
    if (plan.wcl > limit_ + kLatencyTolerance) return;
    plan.dummy_rps = std::max(0.0, plan.served_rps() - m_.rate_rps);
    if (eps_zero(plan.dummy_rps)) plan.dummy_rps = 0;
    plan.feasible = true;
    if (cheapest_within(plan.wcl) <= plan.cost * (1 + kRateEpsilon)) return;  // dominated
    // Drop every point this one dominates, then insert it in latency order.
    std::erase_if(front_, [&](const FrontierPoint& p) {
      return p.latency >= plan.wcl && p.cost >= plan.cost * (1 - kRateEpsilon);
    });
    const auto at = std::ranges::upper_bound(front_, plan.wcl, {}, &FrontierPoint::latency);
    front_.insert(at, FrontierPoint{plan.wcl, plan.cost, std::move(plan)});
  }

  // `slowest` bounds the latency of the tiers placed so far from below, for every completion:
  // padding may add up to one machine of dummies to every tier's collection rate.
  void dfs(std::size_t i, double rw, std::vector<Tier>& tiers, Duration slowest, double cost) {
    if (i >= m_.configs.size()) return;
    if (++stats_.nodes > max_nodes_) {
      stats_.complete = false;
      return;
    }
    // Whatever follows costs at least the remaining rate at the best price per throughput.
    if (cheapest_within(slowest) <= (cost + rw * unit_cost_[i]) * (1 + kRateEpsilon)) return;
    const auto& c = m_.configs[i];
    const double most = std::floor(rw / c.throughput_rps + kRateEpsilon);
    // Whole machines of c see rw (this tier and all below): the same latency for any count.
    const Duration full_latency = c.duration + collection_time(c.batch, rw);
    const bool full_fits = full_latency <= limit_ + kLatencyTolerance;
    const Duration padded_latency = c.duration + collection_time(c.batch, rw + max_padding_);
    for (double k = full_fits ? most : 0; k >= 0; --k) {
      const double rest = std::max(0.0, rw - k * c.throughput_rps);
      const Duration tier_slowest = k > 0 ? std::max(slowest, padded_latency) : slowest;
      const double tier_cost = cost + k * c.price;
      if (k > 0) tiers.push_back(Tier::whole(i, k));
      if (eps_zero(rest)) {
        emit(tiers, tier_slowest);
      } else {
        if (k == most) {
          // (a) a partial machine of c on what is left, as its own last tier, collecting at that
          // rest alone;
          tiers.push_back(Tier::fraction(i, rest / c.throughput_rps));
          emit(tiers, std::max(tier_slowest, c.duration + collection_time(c.batch, rest)));
          tiers.pop_back();
          // (b) or round the rest up to whole machines of c (dummy requests).
          if (padding_) {
            const Tier kept = k > 0 ? tiers.back() : Tier{};
            if (k > 0) tiers.pop_back();
            tiers.push_back(Tier::whole(i, k + std::ceil(rest / c.throughput_rps - kRateEpsilon)));
            emit(tiers, slowest);
            tiers.pop_back();
            if (k > 0) tiers.push_back(kept);
          }
        }
        // (c) or leave the rest to the configurations ranked lower.
        dfs(i + 1, rest, tiers, tier_slowest, tier_cost);
      }
      if (k > 0) tiers.pop_back();
      if (!stats_.complete) return;
    }
  }

  const CostModule& m_;
  Duration limit_;
  BruteForceStats& stats_;
  std::uint64_t max_nodes_;
  bool padding_;
  std::vector<double> unit_cost_;
  double max_padding_ = 0;
  std::vector<FrontierPoint> front_;
};

}  // namespace

std::vector<FrontierPoint> module_frontier(const CostModule& module, Duration limit, BruteForceStats& stats,
                                           std::uint64_t max_nodes, bool padding) {
  if (module.is_fixed()) {
    if (module.fixed_latency > limit + kLatencyTolerance) return {};
    ModulePlan plan;
    plan.feasible = true;
    plan.wcl = module.fixed_latency;
    return {FrontierPoint{module.fixed_latency, 0, plan}};
  }
  return FrontierSearch(module, limit, stats, max_nodes, padding).run();
}

CostPlan plan_brute_force(const CostProblem& problem, const BruteForceOptions& options, BruteForceStats* stats_out) {
  validate(problem);
  CostProblem sorted = problem;
  for (auto& m : sorted.modules)
    sort_configs(m.configs, m.rate_rps);
  const CostDag dag(sorted);
  const std::size_t n = sorted.modules.size();
  BruteForceStats stats;
  CostPlan plan;
  plan.system = "bruteforce";
  plan.problem = sorted;

  std::vector<std::vector<FrontierPoint>> front(n);
  for (std::size_t m = 0; m < n; ++m) {
    front[m] = module_frontier(sorted.modules[m], sorted.slo, stats, options.max_nodes);
    if (front[m].empty()) {
      plan.reason = "module '" + sorted.modules[m].id + "' has no plan within the SLO";
      if (stats_out) *stats_out = stats;
      return plan;
    }
  }
  // Bounds for pruning: the shortest remaining path after each module, and the cheapest cost of
  // every module still to choose.
  std::vector<Duration> fastest(n);
  for (std::size_t m = 0; m < n; ++m)
    fastest[m] = front[m].front().latency;
  const auto tail = dag.longest_after(fastest);  // what must still follow m, at best
  const auto& order = dag.order();
  std::vector<double> floor_cost(n + 1, 0);
  for (std::size_t k = n; k-- > 0;)
    floor_cost[k] = floor_cost[k + 1] + front[order[k]].back().cost;

  double best = kInfiniteCost;
  std::vector<std::size_t> pick(n), best_pick;
  std::vector<Duration> finish(n);
  const auto search = [&](auto&& self, std::size_t idx, double so_far) -> void {
    if (idx == n) {
      if (so_far < best) {
        best = so_far;
        best_pick = pick;
      }
      return;
    }
    if (++stats.nodes > options.max_nodes) {
      stats.complete = false;
      return;
    }
    const std::size_t m = order[idx];
    Duration start;
    for (const auto p : dag.preds(m))
      start = std::max(start, finish[p]);
    // Cheapest first: once the bound fails, every slower-but-dearer point fails too.
    for (std::size_t k = front[m].size(); k-- > 0;) {
      const auto& pt = front[m][k];
      if (so_far + pt.cost + floor_cost[idx + 1] >= best * (1 - 1e-12)) break;
      if (start + pt.latency + tail[m] > sorted.slo + kLatencyTolerance) continue;
      pick[m] = k;
      finish[m] = start + pt.latency;
      self(self, idx + 1, so_far + pt.cost);
      if (!stats.complete) return;
    }
  };
  search(search, 0, 0.0);
  if (stats_out) *stats_out = stats;
  if (best_pick.empty()) {
    plan.reason = "no combination of module plans fits the SLO";
    return plan;
  }
  plan.modules.resize(n);
  for (std::size_t m = 0; m < n; ++m)
    plan.modules[m] = front[m][best_pick[m]].plan;
  complete_plan(plan, sorted, dag);
  if (!stats.complete) plan.reason = "node budget exhausted: best plan found, not proven optimal";
  return plan;
}

}  // namespace servescope::engine
