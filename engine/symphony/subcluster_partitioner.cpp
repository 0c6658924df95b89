#include "engine/symphony/subcluster_partitioner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>

#include "engine/core/elapsed.h"
#include "engine/milp/milp_problem.h"

namespace servescope::engine {
namespace {

constexpr double kEps = 1e-9;

}  // namespace

std::string to_string(PartitionStatus s) {
  switch (s) {
    case PartitionStatus::Optimal:
      return "optimal";
    case PartitionStatus::Feasible:
      return "feasible (time limit)";
    case PartitionStatus::Heuristic:
      return "heuristic";
    case PartitionStatus::Infeasible:
      return "infeasible";
  }
  return "?";
}

std::optional<PartitionResult> evaluate_partition(const PartitionProblem& p, const std::vector<int>& a) {
  const auto l = static_cast<std::size_t>(p.subclusters);
  std::vector<double> rate(l, 0), mem(l, 0), dyn(l, 0);
  double total_rate = 0, total_mem = 0;
  for (std::size_t i = 0; i < p.models.size(); ++i) {
    const auto j = static_cast<std::size_t>(a[i]);
    rate[j] += p.models[i].rate_rps;
    mem[j] += p.models[i].static_memory;
    dyn[j] = std::max(dyn[j], p.models[i].dynamic_memory);
    total_rate += p.models[i].rate_rps;
    total_mem += p.models[i].static_memory;
  }
  PartitionResult r;
  r.assignment = a;
  const double mean_rate = total_rate / static_cast<double>(l), mean_mem = total_mem / static_cast<double>(l);
  for (std::size_t j = 0; j < l; ++j) {
    if (p.memory_limit > 0 && mem[j] + dyn[j] > p.memory_limit + kEps) return std::nullopt;
    if (p.rate_limit && rate[j] > *p.rate_limit + kEps) return std::nullopt;
    r.rate_spread = std::max(r.rate_spread, std::fabs(rate[j] - mean_rate));
    r.memory_spread = std::max(r.memory_spread, std::fabs(mem[j] - mean_mem));
  }
  if (!p.current.empty())
    for (std::size_t i = 0; i < p.models.size(); ++i)
      if (a[i] != p.current[i]) r.move_cost += 2 * p.move_cost;  // unload from the old, load on the new
  if (p.max_move_cost && r.move_cost > *p.max_move_cost + kEps) return std::nullopt;
  r.objective = r.rate_spread + p.memory_weight * r.memory_spread;
  r.status = PartitionStatus::Heuristic;
  return r;
}

std::pair<double, double> imbalance_factors(const PartitionProblem& p, const std::vector<int>& a) {
  const auto l = static_cast<std::size_t>(p.subclusters);
  std::vector<double> rate(l, 0), mem(l, 0);
  for (std::size_t i = 0; i < p.models.size(); ++i) {
    rate[static_cast<std::size_t>(a[i])] += p.models[i].rate_rps;
    mem[static_cast<std::size_t>(a[i])] += p.models[i].static_memory;
  }
  auto factor = [&](const std::vector<double>& v) {
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return mean > 0 ? (*hi - *lo) / mean : 0.0;
  };
  return {factor(rate), factor(mem)};
}

PartitionResult solve_partition_milp(const PartitionProblem& p, double time_limit_s, int node_limit) {
  const auto start = WallClock::now();
  const auto n = p.models.size();
  const auto l = static_cast<std::size_t>(p.subclusters);
  MilpProblem milp(Sense::Minimize);
  std::vector<std::vector<int>> x(n, std::vector<int>(l));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < l; ++j)
      x[i][j] = milp.add_variable(VarKind::Binary, 0, 1, 0);
  const int dR = milp.add_variable(VarKind::Continuous, 0, MilpProblem::kInf, 1);
  const int dS = milp.add_variable(VarKind::Continuous, 0, MilpProblem::kInf, p.memory_weight);
  double total_rate = 0, total_mem = 0;
  for (const auto& m : p.models) {
    total_rate += m.rate_rps;
    total_mem += m.static_memory;
  }
  const double mean_rate = total_rate / static_cast<double>(l), mean_mem = total_mem / static_cast<double>(l);
  if (p.current.empty()) {
    // Sub-clusters are interchangeable: label them in order of their first model, so model i
    // never sits in a sub-cluster above i. Removes the l! mirror images of every solution.
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < l; ++j)
        milp.add_row({{x[i][j], 1.0}}, 0, 0);
  }
  for (std::size_t i = 0; i < n; ++i) {  // (8) every model in exactly one sub-cluster
    std::vector<std::pair<int, double>> row;
    for (std::size_t j = 0; j < l; ++j)
      row.emplace_back(x[i][j], 1.0);
    milp.add_row(row, 1, 1);
  }
  for (std::size_t j = 0; j < l; ++j) {
    std::vector<std::pair<int, double>> rate_row, mem_row;
    for (std::size_t i = 0; i < n; ++i) {
      rate_row.emplace_back(x[i][j], p.models[i].rate_rps);
      mem_row.emplace_back(x[i][j], p.models[i].static_memory);
    }
    if (p.rate_limit) milp.add_row(rate_row, -MilpProblem::kInf, *p.rate_limit);  // (4)
    if (p.memory_limit > 0) {                                                     // (5), linearised max
      const int D = milp.add_variable(VarKind::Continuous, 0, MilpProblem::kInf, 0);
      for (std::size_t i = 0; i < n; ++i)
        if (p.models[i].dynamic_memory > 0)
          milp.add_row({{D, 1.0}, {x[i][j], -p.models[i].dynamic_memory}}, 0, MilpProblem::kInf);
      auto row = mem_row;
      row.emplace_back(D, 1.0);
      milp.add_row(row, -MilpProblem::kInf, p.memory_limit);
    }
    // (6), (7): |Σ − mean| ≤ Δ as two inequalities each.
    auto plus = rate_row, minus = rate_row;
    plus.emplace_back(dR, -1.0);
    milp.add_row(plus, -MilpProblem::kInf, mean_rate);
    for (auto& t : minus)
      t.second = -t.second;
    minus.emplace_back(dR, -1.0);
    milp.add_row(minus, -MilpProblem::kInf, -mean_rate);
    auto mplus = mem_row, mminus = mem_row;
    mplus.emplace_back(dS, -1.0);
    milp.add_row(mplus, -MilpProblem::kInf, mean_mem);
    for (auto& t : mminus)
      t.second = -t.second;
    mminus.emplace_back(dS, -1.0);
    milp.add_row(mminus, -MilpProblem::kInf, -mean_mem);
  }
  if (!p.current.empty() && p.max_move_cost) {  // (10): y = x where x' = 0, 1 − x where x' = 1
    std::vector<std::pair<int, double>> row;
    double constant = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < l; ++j) {
        if (p.current[i] == static_cast<int>(j)) {
          constant += p.move_cost;
          row.emplace_back(x[i][j], -p.move_cost);
        } else {
          row.emplace_back(x[i][j], p.move_cost);
        }
      }
    milp.add_row(row, -MilpProblem::kInf, *p.max_move_cost - constant);
  }
  MilpOptions options;
  options.time_limit_s = time_limit_s;
  if (node_limit > 0) options.node_limit = node_limit;
  const auto solved = milp.solve(options);
  PartitionResult r;
  r.solve_seconds = seconds_since(start);
  if (!solved.has_solution()) {
    r.status = PartitionStatus::Infeasible;
    r.message = solved.status == MilpStatus::Infeasible ? "no assignment satisfies the limits"
                                                        : "the solver found no assignment in time";
    if (solved.status != MilpStatus::Infeasible) r.status = PartitionStatus::Heuristic;  // caller may fall back
    return r;
  }
  std::vector<int> a(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < l; ++j)
      if (solved.values[static_cast<std::size_t>(x[i][j])] > 0.5) a[i] = static_cast<int>(j);
  auto eval = evaluate_partition(p, a);
  if (!eval) {
    r.status = PartitionStatus::Infeasible;
    r.message = "the solver's assignment breaks a limit after rounding";
    return r;
  }
  *eval = PartitionResult{solved.status == MilpStatus::Optimal ? PartitionStatus::Optimal : PartitionStatus::Feasible,
                          eval->assignment,
                          eval->objective,
                          eval->rate_spread,
                          eval->memory_spread,
                          eval->move_cost,
                          r.solve_seconds,
                          to_string(solved.status)};
  return *eval;
}

PartitionResult solve_partition_heuristic(const PartitionProblem& p, double time_limit_s) {
  const auto start = WallClock::now();
  const auto n = p.models.size();
  const auto l = p.subclusters;
  std::vector<int> a;
  if (!p.current.empty()) {
    a = p.current;  // start from where we are: moves cost
  } else {
    // Greedy: models by decreasing rate into the least-loaded sub-cluster that still has memory.
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::ranges::sort(order, [&](auto x, auto y) { return p.models[x].rate_rps > p.models[y].rate_rps; });
    a.assign(n, 0);
    std::vector<double> rate(static_cast<std::size_t>(l), 0), mem(static_cast<std::size_t>(l), 0);
    for (auto i : order) {
      int best = -1;
      for (int j = 0; j < l; ++j) {
        const auto ju = static_cast<std::size_t>(j);
        if (p.memory_limit > 0 && mem[ju] + p.models[i].static_memory + p.models[i].dynamic_memory > p.memory_limit)
          continue;
        if (best < 0 || rate[ju] < rate[static_cast<std::size_t>(best)]) best = j;
      }
      if (best < 0) best = static_cast<int>(std::min_element(mem.begin(), mem.end()) - mem.begin());
      a[i] = best;
      rate[static_cast<std::size_t>(best)] += p.models[i].rate_rps;
      mem[static_cast<std::size_t>(best)] += p.models[i].static_memory;
    }
  }
  auto best = evaluate_partition(p, a);
  // Local search: single moves and pairwise swaps while they improve, within the time limit.
  bool improved = true;
  while (improved && seconds_since(start) < time_limit_s) {
    improved = false;
    for (std::size_t i = 0; i < n && !improved; ++i) {
      for (int j = 0; j < l && !improved; ++j) {
        if (j == a[i]) continue;
        auto b = a;
        b[i] = j;
        if (auto e = evaluate_partition(p, b); e && (!best || e->objective < best->objective - kEps)) {
          a = b;
          best = e;
          improved = true;
        }
      }
      for (std::size_t k = i + 1; k < n && !improved; ++k) {
        if (a[i] == a[k]) continue;
        auto b = a;
        std::swap(b[i], b[k]);
        if (auto e = evaluate_partition(p, b); e && (!best || e->objective < best->objective - kEps)) {
          a = b;
          best = e;
          improved = true;
        }
      }
    }
  }
  PartitionResult r;
  if (best) r = *best;
  r.status = best ? PartitionStatus::Heuristic : PartitionStatus::Infeasible;
  if (!best) r.message = "the heuristic found no assignment within the limits";
  r.solve_seconds = seconds_since(start);
  return r;
}

PartitionResult solve_partition_random(const PartitionProblem& p, double time_limit_s, std::uint64_t seed) {
  const auto start = WallClock::now();
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(0, p.subclusters - 1);
  std::optional<PartitionResult> best;
  std::vector<int> a(p.models.size());
  do {
    for (auto& x : a)
      x = pick(rng);
    if (auto e = evaluate_partition(p, a); e && (!best || e->objective < best->objective)) best = e;
  } while (seconds_since(start) < time_limit_s);
  PartitionResult r;
  if (best) r = *best;
  r.status = best ? PartitionStatus::Heuristic : PartitionStatus::Infeasible;
  r.solve_seconds = seconds_since(start);
  return r;
}

PartitionResult solve_partition(const PartitionProblem& p, double time_limit_s, int node_limit) {
  auto r = solve_partition_milp(p, time_limit_s, node_limit);
  if (r.status == PartitionStatus::Heuristic) return solve_partition_heuristic(p, std::max(0.1, time_limit_s / 10));
  return r;
}

}  // namespace servescope::engine
