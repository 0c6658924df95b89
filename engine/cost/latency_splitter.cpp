#include "engine/cost/latency_splitter.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

namespace servescope::engine {
namespace {

// The units that move: single modules, or sibling classes when merging.
std::vector<std::vector<std::size_t>> units(const SplitInput& input, bool merge) {
  std::vector<bool> plannable(input.options.size());
  for (std::size_t m = 0; m < plannable.size(); ++m)
    plannable[m] = input.options[m].size() > 1;
  std::vector<std::vector<std::size_t>> out;
  std::vector<bool> taken(plannable.size());
  if (merge)
    for (auto& cls : sibling_classes(*input.dag, plannable)) {
      for (const auto m : cls)
        taken[m] = true;
      out.push_back(std::move(cls));
    }
  for (std::size_t m = 0; m < plannable.size(); ++m)
    if (plannable[m] && !taken[m]) out.push_back({m});
  return out;
}

double saving(double from, double to) {
  if (to == kInfiniteCost) return -kInfiniteCost;
  if (from == kInfiniteCost) return kInfiniteCost;
  return from - to;
}

// Every cost-lowering move of one unit from `choice`. A single module may switch to any option;
// a class moves to a shared latency level, each member to its cheapest option within it.
void unit_moves(const SplitInput& input, const std::vector<std::size_t>& unit, const std::vector<std::size_t>& choice,
                std::vector<SplitMove>& out) {
  const auto& opts = input.options;
  if (unit.size() == 1) {
    const std::size_t m = unit[0];
    const auto& cur = opts[m][choice[m]];
    for (std::size_t c = 0; c < opts[m].size(); ++c) {
      if (c == choice[m]) continue;
      const double dc = saving(cur.cost, opts[m][c].cost);
      const double eps = kRateEpsilon * std::max(1.0, std::abs(cur.cost == kInfiniteCost ? 1.0 : cur.cost));
      if (!(dc > eps)) continue;
      const Duration dl = opts[m][c].latency - cur.latency;
      const double lc = (dl <= kLatencyTolerance || dc == kInfiniteCost) ? kInfiniteCost : dc / dl.to_s();
      out.push_back({{{m, c}}, lc, dc, dl});
    }
    return;
  }
  Duration level0;
  for (const auto m : unit)
    level0 = std::max(level0, opts[m][choice[m]].latency);
  std::set<Duration> levels{level0};
  for (const auto m : unit)
    for (const auto& o : opts[m])
      if (o.latency > level0) levels.insert(o.latency);
  for (const auto level : levels) {
    SplitMove move;
    double total = 0;
    for (const auto m : unit) {
      std::size_t best = choice[m];
      for (std::size_t c = 0; c < opts[m].size(); ++c)
        if (opts[m][c].latency <= level && opts[m][c].cost < opts[m][best].cost) best = c;
      if (best != choice[m]) move.changes.emplace_back(m, best);
      total += saving(opts[m][choice[m]].cost, opts[m][best].cost);
    }
    if (move.changes.empty() || !(total > kRateEpsilon)) continue;
    move.saving = total;
    move.spent = level - level0;
    move.lc = (move.spent <= kLatencyTolerance || total == kInfiniteCost) ? kInfiniteCost : total / move.spent.to_s();
    out.push_back(std::move(move));
  }
}

double score_of(const SplitInput& input, const SplitMove& move, SplitScore score) {
  switch (score) {
    case SplitScore::LatencyCost:
      return move.lc;
    case SplitScore::CostSaving:
      return move.saving;
    case SplitScore::Throughput: {
      double s = 0;
      for (const auto& [m, c] : move.changes)
        s = std::max(s, input.options[m][c].score);
      return s;
    }
  }
  return 0;
}

// Applies moves greedily until none fits. Ties: larger saving, then less latency, then the
// first unit and option in order (Harpagon digest gap G18).
void greedy(const SplitInput& input, SplitScore score, const std::vector<std::vector<std::size_t>>& all_units,
            std::vector<std::size_t>& choice, std::vector<SplitMove>* history) {
  std::vector<SplitMove> moves;
  const std::size_t n = choice.size();
  std::vector<Duration> weight(n), start(n);
  for (std::size_t guard = 0; guard < 100'000; ++guard) {
    const SplitMove* best = nullptr;
    double best_score = -kInfiniteCost;
    moves.clear();
    for (const auto& u : all_units)
      unit_moves(input, u, choice, moves);
    // A unit's members share parents and children and lie on no path through each other, so a
    // move fits when each changed module, started when its parents finish and followed by the
    // longest path after it, fits: the rest of the DAG is unchanged and already fits.
    for (std::size_t m = 0; m < n; ++m)
      weight[m] = input.options[m][choice[m]].latency;
    const auto after = input.dag->longest_after(weight);
    const auto through = input.dag->longest_through(weight);
    for (std::size_t m = 0; m < n; ++m)
      start[m] = through[m] - weight[m] - after[m];
    const auto fits = [&](const SplitMove& mv) {
      return std::ranges::all_of(mv.changes, [&](const auto& change) {
        const auto [m, c] = change;
        return start[m] + input.options[m][c].latency + after[m] <= input.slo + kLatencyTolerance;
      });
    };
    for (const auto& mv : moves) {
      const double s = score_of(input, mv, score);
      const bool better =
          !best || s > best_score ||
          (s == best_score && (mv.saving > best->saving || (mv.saving == best->saving && mv.spent < best->spent)));
      if (!better || !fits(mv)) continue;
      best = &mv;
      best_score = s;
    }
    if (!best) return;
    for (const auto& [m, c] : best->changes)
      choice[m] = c;
    if (history) history->push_back(*best);
  }
}

// One module's options by latency with the running minimum of cost: the cheapest option within
// a latency is a binary search away.
struct CheapestWithin {
  std::vector<Duration> latency;    // ascending
  std::vector<double> cost;         // cost[k]: the least cost among the first k + 1 options
  std::vector<std::size_t> option;  // which option gives it

  explicit CheapestWithin(const std::vector<SplitOption>& opts) {
    std::vector<std::size_t> order(opts.size());
    for (std::size_t k = 0; k < order.size(); ++k)
      order[k] = k;
    std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) { return opts[a].latency < opts[b].latency; });
    for (const auto k : order) {
      const bool better = cost.empty() || opts[k].cost < cost.back();
      latency.push_back(opts[k].latency);
      cost.push_back(better ? opts[k].cost : cost.back());
      option.push_back(better ? k : option.back());
    }
  }
  // The cheapest option no slower than `limit`, or none.
  std::optional<std::size_t> within(Duration limit) const {
    const auto it = std::ranges::upper_bound(latency, limit + kLatencyTolerance);
    if (it == latency.begin()) return std::nullopt;
    return option[static_cast<std::size_t>(it - latency.begin()) - 1];
  }
};

}  // namespace

std::vector<std::vector<std::size_t>> sibling_classes(const CostDag& dag, const std::vector<bool>& plannable) {
  std::vector<std::vector<std::size_t>> out;
  std::vector<bool> used(dag.size());
  const auto sorted = [](std::vector<std::size_t> v) {
    std::ranges::sort(v);
    return v;
  };
  for (std::size_t a = 0; a < dag.size(); ++a) {
    if (used[a] || !plannable[a]) continue;
    std::vector<std::size_t> cls{a};
    for (std::size_t b = a + 1; b < dag.size(); ++b)
      if (!used[b] && plannable[b] && sorted(dag.preds(a)) == sorted(dag.preds(b)) &&
          sorted(dag.succs(a)) == sorted(dag.succs(b)))
        cls.push_back(b);
    if (cls.size() < 2) continue;
    for (const auto m : cls)
      used[m] = true;
    out.push_back(std::move(cls));
  }
  return out;
}

Duration critical_path(const SplitInput& input, const std::vector<std::size_t>& choice) {
  std::vector<Duration> weight(choice.size());
  for (std::size_t m = 0; m < choice.size(); ++m)
    weight[m] = input.options[m][choice[m]].latency;
  return input.dag->longest_path(weight);
}

SplitResult split_latency(const SplitInput& input, SplitScore score, bool merge) {
  SplitResult r;
  r.choice = input.start;
  r.feasible = critical_path(input, r.choice) <= input.slo + kLatencyTolerance;
  if (!r.feasible) return r;
  greedy(input, score, units(input, merge), r.choice, &r.history);
  return r;
}

std::vector<std::vector<std::size_t>> cost_direct(const SplitInput& input, const SplitResult& done, int rounds,
                                                  bool merge) {
  std::vector<std::vector<std::size_t>> out;
  if (!done.feasible) return out;
  const auto all_units = units(input, merge);
  const int n = static_cast<int>(done.history.size());
  for (int r = 1; r <= std::min(rounds, n); ++r) {
    auto choice = input.start;
    for (int k = 0; k < n - r; ++k)
      for (const auto& [m, c] : done.history[static_cast<std::size_t>(k)].changes)
        choice[m] = c;
    greedy(input, SplitScore::CostSaving, all_units, choice, nullptr);
    out.push_back(std::move(choice));
  }
  return out;
}

std::vector<SplitMove> exchange_pairs(const SplitInput& input, std::vector<std::size_t>& choice) {
  const std::size_t n = input.options.size();
  std::vector<CheapestWithin> cheapest;
  cheapest.reserve(n);
  for (const auto& opts : input.options)
    cheapest.emplace_back(opts);
  const auto total = [&](const std::vector<std::size_t>& c) {
    double sum = 0;
    for (std::size_t m = 0; m < n; ++m)
      sum += input.options[m][c[m]].cost;
    return sum;
  };
  std::vector<SplitMove> moves;
  // Each applied move lowers the total by more than the tolerance, so this ends; the guard
  // only bounds the work on adversarial inputs.
  for (int guard = 0; guard < 1000; ++guard) {
    const double now = total(choice);
    double best_total = now - kRateEpsilon * std::max(1.0, std::abs(now));
    std::optional<std::vector<std::size_t>> best;
    std::vector<Duration> weight(n);
    for (std::size_t a = 0; a < n; ++a) {
      if (input.options[a].size() < 2) continue;
      // Every option of a against b's best answer covers every pair of options of {a, b}.
      for (std::size_t b = a + 1; b < n; ++b) {
        if (input.options[b].size() < 2) continue;
        auto trial = choice;
        for (std::size_t ca = 0; ca < input.options[a].size(); ++ca) {
          if (input.options[a][ca].cost == kInfiniteCost) continue;
          trial[a] = ca;
          // With b weightless, the longest path through b leaves b the rest of the SLO.
          for (std::size_t m = 0; m < n; ++m)
            weight[m] = m == b ? Duration() : input.options[m][trial[m]].latency;
          const auto through = input.dag->longest_through(weight);
          if (*std::ranges::max_element(through) > input.slo + kLatencyTolerance) continue;
          const auto cb = cheapest[b].within(input.slo - through[b]);
          if (!cb) continue;
          trial[b] = *cb;
          const double t = total(trial);
          if (t < best_total) {
            best_total = t;
            best = trial;
          }
        }
      }
    }
    if (!best) break;
    SplitMove move;
    for (std::size_t m = 0; m < n; ++m)
      if ((*best)[m] != choice[m]) move.changes.emplace_back(m, (*best)[m]);
    move.saving = now - best_total;
    move.spent = critical_path(input, *best) - critical_path(input, choice);
    move.lc = move.spent <= kLatencyTolerance ? kInfiniteCost : move.saving / move.spent.to_s();
    choice = std::move(*best);
    moves.push_back(std::move(move));
  }
  return moves;
}

}  // namespace servescope::engine
