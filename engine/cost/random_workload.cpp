#include "engine/cost/random_workload.h"

#include <cmath>
#include <random>
#include <tuple>

namespace servescope::engine {

CostProblem random_cost_problem(std::uint64_t seed, const RandomWorkloadOptions& options) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  CostProblem p;
  p.name = "random-" + std::to_string(seed);
  const auto n = static_cast<std::size_t>(2 + rng() % 3);
  const auto shape = rng() % 3;  // 0 chain, 1 fork from the first module, 2 fork-join (4 modules)
  const double source = std::exp(std::log(10.0) + u(rng) * (std::log(400.0) - std::log(10.0)));
  for (std::size_t k = 0; k < n; ++k) {
    CostModule m;
    m.id = "m" + std::to_string(k);
    m.model = m.id;
    m.rate_rps = k == 0 ? source : source * (0.5 + 2.5 * u(rng));
    const double alpha = 0.002 + 0.02 * u(rng);  // s per item on the cheap type
    const double beta = 0.005 + 0.03 * u(rng);   // s per batch
    const double speed = 1.5 + 0.5 * u(rng);     // the dear type's speed-up
    for (const auto& [hw, price, factor] : {std::tuple{"P100", 1.0, 1.0}, std::tuple{"V100", 1.5, 1 / speed}})
      for (int b = 1; b <= options.max_batch; b *= 2)
        for (int s = 1; s <= (options.spatial ? 2 : 1); ++s) {
          const double d = (beta + alpha * b) * factor * (s == 1 ? 1.0 : 1.6);
          m.configs.push_back(make_cost_config(hw, b, s, Duration::from_s(d), price));
        }
    sort_configs(m.configs, m.rate_rps);
    p.modules.push_back(std::move(m));
  }
  if (shape == 2 && n == 4) {
    p.edges = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
  } else {
    for (std::size_t k = 1; k < n; ++k)
      p.edges.emplace_back(shape >= 1 && n >= 3 ? 0 : k - 1, k);
  }
  CostDag dag(p);
  std::vector<Duration> fastest(n);
  for (std::size_t m = 0; m < n; ++m) {
    Duration best = Duration::max();
    for (const auto& c : p.modules[m].configs)
      best = std::min(best, c.duration + collection_time(c.batch, p.modules[m].rate_rps));
    fastest[m] = best;
  }
  p.slo = Duration::from_s(dag.longest_path(fastest).to_s() * (1.2 + 4.8 * u(rng)));
  return p;
}

}  // namespace servescope::engine
