#include "engine/cost/module_arrivals.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace servescope::engine {

std::vector<ModuleArrivals> module_arrivals(const CostProblem& problem, const CostDag& dag, const CostPlan& plan,
                                            double source_shape) {
  const std::size_t n = problem.modules.size();
  std::vector<ModuleArrivals> out(n);
  std::vector<double> burst_out(n, 1.0);  // what leaves a module at once: its largest batch or what it got
  for (const auto m : dag.order()) {
    const auto& mod = problem.modules[m];
    auto& a = out[m];
    a.rate_rps = mod.rate_rps;
    a.spacing_shape = source_shape;
    for (const auto p : dag.preds(m)) {
      const double ratio =
          mod.is_fixed() || problem.modules[p].is_fixed() ? 1.0 : mod.rate_rps / problem.modules[p].rate_rps;
      if (burst_out[p] * ratio > a.burst) {
        a.burst = burst_out[p] * ratio;
        a.spacing_shape = burst_out[p];
      }
    }
    burst_out[m] = a.burst;
    if (!mod.is_fixed() && m < plan.modules.size())
      for (const auto& t : plan.modules[m].tiers)
        burst_out[m] = std::max(burst_out[m], static_cast<double>(plan.problem.modules[m].configs[t.config].batch));
  }
  return out;
}

std::vector<Time> arrival_instants(const ModuleArrivals& arrivals, Duration span, std::uint64_t seed) {
  std::vector<Time> out;
  if (!(arrivals.rate_rps > 0)) return out;
  const int burst = std::max(1, static_cast<int>(std::lround(arrivals.burst)));
  const double shape = std::max(arrivals.spacing_shape, 1e-3);
  // Mean gap burst / rate keeps the request rate whatever the burst size.
  std::gamma_distribution<double> gap(shape, burst / arrivals.rate_rps / shape);
  std::mt19937_64 rng(seed);
  const double end = span.to_s();
  out.reserve(static_cast<std::size_t>(arrivals.rate_rps * end * 1.1) + 16);
  for (double t = gap(rng); t < end; t += gap(rng))
    for (int k = 0; k < burst; ++k)
      out.push_back(Time() + Duration::from_s(t));
  return out;
}

}  // namespace servescope::engine
