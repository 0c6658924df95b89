#include "engine/cost/quantized_split.h"

#include <algorithm>
#include <limits>
#include <ranges>

#include "engine/cost/latency_splitter.h"

namespace servescope::engine {
namespace {

struct Breakpoint {
  std::size_t steps = 0;
  double cost = 0;
};

std::string ms_text(Duration d) {
  return std::to_string(d.count_ns() / 1'000'000) + " ms";
}

}  // namespace

QuantizedSplit quantized_split(const CostDag& dag, Duration slo, Duration quantum,
                               const std::function<double(std::size_t, Duration)>& cost) {
  QuantizedSplit out;
  const std::int64_t q = std::max<std::int64_t>(1, quantum.count_ns());
  const std::int64_t total = slo.count_ns() / q;
  if (total < 1) return out;
  if (total > kMaxQuantizedSteps) {
    out.refusal = "the quantized split plans at most " + std::to_string(kMaxQuantizedSteps) +
                  " quanta, and an SLO of " + ms_text(slo) + " is " + std::to_string(total) + " quanta of " +
                  ms_text(quantum);
    return out;
  }
  const auto S = static_cast<std::size_t>(total);
  const std::size_t n = dag.size();
  const auto budget = [&](std::size_t j) { return Duration::nanoseconds(static_cast<std::int64_t>(j) * q); };

  std::vector<std::vector<Breakpoint>> points(n);
  for (std::size_t m = 0; m < n; ++m) {
    double low = kInfiniteCost;
    for (std::size_t j = 1; j <= S; ++j) {
      const double c = cost(m, budget(j));
      if (c < low) {
        low = c;
        points[m].push_back({j, c});
      }
    }
  }

  const auto& order = dag.order();
  std::vector<std::size_t> steps(n, 0);
  const bool forest = std::ranges::all_of(order, [&](std::size_t m) { return dag.preds(m).size() <= 1; });
  if (forest) {
    // f[u][k]: the least cost of u and everything below it within k steps.
    std::vector<std::vector<double>> f(n, std::vector<double>(S + 1, kInfiniteCost));
    std::vector<std::vector<std::size_t>> arg(n, std::vector<std::size_t>(S + 1, 0));
    for (const std::size_t u : std::views::reverse(order)) {
      for (std::size_t k = 1; k <= S; ++k)
        for (const auto& [j, c] : points[u]) {
          if (j > k) break;
          double v = c;
          for (const auto child : dag.succs(u))
            v += f[child][k - j];
          if (v < f[u][k]) {
            f[u][k] = v;
            arg[u][k] = j;
          }
        }
    }
    std::vector<std::size_t> left(n, S);
    for (const auto u : order) {
      if (f[u][left[u]] == kInfiniteCost) return out;
      steps[u] = arg[u][left[u]];
      for (const auto child : dag.succs(u))
        left[child] = left[u] - steps[u];
    }
  } else {
    // Branch and bound in topological order: each module starts when its parents finish and
    // takes one of its breakpoints.
    std::vector<double> floor_cost(n + 1, 0);
    for (std::size_t k = n; k-- > 0;)
      floor_cost[k] = floor_cost[k + 1] + (points[order[k]].empty() ? kInfiniteCost : points[order[k]].back().cost);
    double best = kInfiniteCost;
    std::uint64_t nodes = 0;
    std::vector<std::size_t> finish(n, 0), best_finish;
    const auto search = [&](auto&& self, std::size_t idx, double so_far) -> void {
      if (++nodes > kMaxQuantizedNodes) return;
      if (idx == n) {
        if (so_far < best) {
          best = so_far;
          best_finish = finish;
        }
        return;
      }
      const std::size_t m = order[idx];
      std::size_t start = 0;
      for (const auto p : dag.preds(m))
        start = std::max(start, finish[p]);
      for (const auto& [j, c] : points[m]) {
        if (start + j > S) break;
        if (so_far + c + floor_cost[idx + 1] >= best) continue;
        finish[m] = start + j;
        self(self, idx + 1, so_far + c);
      }
    };
    search(search, 0, 0.0);
    if (nodes > kMaxQuantizedNodes) {
      out.refusal = "the quantized split searched " + std::to_string(kMaxQuantizedNodes) +
                    " branch-and-bound nodes without proving the cheapest split";
      return out;
    }
    if (best == kInfiniteCost) return out;
    for (const auto m : order) {
      std::size_t start = 0;
      for (const auto p : dag.preds(m))
        start = std::max(start, best_finish[p]);
      steps[m] = best_finish[m] - start;
    }
  }
  out.budgets.resize(n);
  for (std::size_t m = 0; m < n; ++m)
    out.budgets[m] = budget(steps[m]);
  return out;
}

}  // namespace servescope::engine
