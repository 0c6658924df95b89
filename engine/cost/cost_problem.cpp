#include "engine/cost/cost_problem.h"

#include <algorithm>
#include <cmath>
#include <ranges>
#include <tuple>

#include "model/core/error.h"

namespace servescope::engine {

CostConfig make_cost_config(std::string hw, int batch, int concurrency, Duration duration, double price) {
  if (batch < 1 || concurrency < 1 || duration <= Duration() || !(price > 0))
    throw QueryError("configuration " + hw + " b" + std::to_string(batch) + " s" + std::to_string(concurrency) +
                     " needs a positive batch, concurrency, duration and price");
  CostConfig c{std::move(hw), batch, concurrency, duration, price, 0};
  c.throughput_rps = static_cast<double>(concurrency) * batch / duration.to_s();
  return c;
}

Duration collection_time(int batch, double rate_rps) {
  constexpr double kLongest = 1e15;  // ns: about 11 days, far beyond any SLO, far below overflow
  if (!(rate_rps > 0)) return Duration::nanoseconds(static_cast<std::int64_t>(kLongest));
  const double ns = std::min(kLongest, static_cast<double>(batch) * 1e9 / rate_rps);
  // Rounds half up, as llround does for these non-negative values, without its library call
  // (a tenth of the cost planners' time).
  return Duration::nanoseconds(static_cast<std::int64_t>(ns + 0.5));  // NOLINT(bugprone-incorrect-roundings)
}

void sort_configs(std::vector<CostConfig>& configs, double rate_rps) {
  const auto key = [&](const CostConfig& c) {
    return std::make_tuple(-c.ratio(), c.duration + collection_time(c.batch, rate_rps), c.price, c.batch,
                           std::string_view(c.hw), c.concurrency);
  };
  std::ranges::stable_sort(configs, [&](const CostConfig& a, const CostConfig& b) { return key(a) < key(b); });
}

void validate(const CostProblem& problem) {
  if (problem.modules.empty()) throw QueryError("application '" + problem.name + "' has no modules");
  if (problem.slo <= Duration()) throw QueryError("application '" + problem.name + "' needs a positive SLO");
  for (const auto& [from, to] : problem.edges)
    if (from >= problem.modules.size() || to >= problem.modules.size() || from == to)
      throw QueryError("application '" + problem.name + "' has an edge between unknown or equal modules");
  for (const auto& m : problem.modules) {
    if (m.is_fixed()) continue;
    if (m.configs.empty())
      throw QueryError("module '" + m.id + "' runs model '" + m.model + "' but has no configuration to run it on");
    if (!(m.rate_rps > 0)) throw QueryError("module '" + m.id + "' needs a positive request rate");
  }
  CostDag dag(problem);  // throws on a cycle
}

CostDag::CostDag(const CostProblem& problem) : preds_(problem.modules.size()), succs_(problem.modules.size()) {
  for (const auto& [from, to] : problem.edges) {
    succs_[from].push_back(to);
    preds_[to].push_back(from);
  }
  std::vector<std::size_t> indegree(size());
  for (std::size_t m = 0; m < size(); ++m)
    indegree[m] = preds_[m].size();
  // Kahn's algorithm, smallest index first, so the order is the same on every run.
  std::vector<std::size_t> ready;
  for (std::size_t m = 0; m < size(); ++m)
    if (indegree[m] == 0) ready.push_back(m);
  while (!ready.empty()) {
    const auto it = std::ranges::min_element(ready);
    const std::size_t m = *it;
    ready.erase(it);
    order_.push_back(m);
    for (const auto s : succs_[m])
      if (--indegree[s] == 0) ready.push_back(s);
  }
  if (order_.size() != size()) throw QueryError("application '" + problem.name + "' has a cycle");
}

Duration CostDag::longest_path(const std::vector<Duration>& weight) const {
  std::vector<Duration> finish(size());
  Duration longest;
  for (const auto m : order_) {
    Duration start;
    for (const auto p : preds_[m])
      start = std::max(start, finish[p]);
    finish[m] = start + weight[m];
    longest = std::max(longest, finish[m]);
  }
  return longest;
}

std::vector<Duration> CostDag::longest_after(const std::vector<Duration>& weight) const {
  std::vector<Duration> after(size());
  for (const auto u : std::views::reverse(order_))
    for (const auto s : succs_[u])
      after[u] = std::max(after[u], after[s] + weight[s]);
  return after;
}

std::vector<Duration> CostDag::longest_through(const std::vector<Duration>& weight) const {
  std::vector<Duration> up(size());
  for (const auto m : order_) {
    Duration start;
    for (const auto p : preds_[m])
      start = std::max(start, up[p]);
    up[m] = start + weight[m];
  }
  auto out = longest_after(weight);
  for (std::size_t m = 0; m < size(); ++m)
    out[m] += up[m];
  return out;
}

int CostDag::deepest(const std::vector<bool>& counted) const {
  std::vector<int> depth(size());
  int deepest = 0;
  for (const auto m : order_) {
    int start = 0;
    for (const auto p : preds_[m])
      start = std::max(start, depth[p]);
    depth[m] = start + (counted[m] ? 1 : 0);
    deepest = std::max(deepest, depth[m]);
  }
  return deepest;
}

}  // namespace servescope::engine
