#include "engine/cost/random_workload.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>

namespace servescope::engine {
namespace {

struct HardwareType {
  const char* id;
  double price;
  double factor;  // duration relative to the cheap type
};

// A random subset of the sizes people profile, 3–8 of them, sorted.
std::vector<int> irregular_batches(std::mt19937_64& rng, int max_batch) {
  std::vector<int> sizes;
  for (const int b : {1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 100, 128})
    if (b <= max_batch) sizes.push_back(b);
  std::ranges::shuffle(sizes, rng);
  sizes.resize(std::min(sizes.size(), static_cast<std::size_t>(3 + rng() % 6)));
  std::ranges::sort(sizes);
  return sizes;
}

}  // namespace

RandomWorkloadOptions RandomWorkloadOptions::audit() {
  RandomWorkloadOptions o;
  o.third_type = true;
  o.irregular_batches = true;
  o.max_batch = 128;
  o.max_concurrency = 4;
  o.mps_only = 0.15;
  o.missing_type = 0.2;
  o.join = 0.25;
  return o;
}

CostProblem random_cost_problem(std::uint64_t seed, const RandomWorkloadOptions& options) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  CostProblem p;
  p.name = "random-" + std::to_string(seed);
  const auto n = static_cast<std::size_t>(2 + rng() % 3);
  auto shape = rng() % 3;  // 0 chain, 1 fork from the first module, 2 fork-join (4 modules), 3 join
  if (options.join > 0 && n >= 3 && u(rng) < options.join) shape = 3;
  const double source = std::exp(std::log(10.0) + u(rng) * (std::log(400.0) - std::log(10.0)));
  for (std::size_t k = 0; k < n; ++k) {
    CostModule m;
    m.id = "m" + std::to_string(k);
    m.model = m.id;
    m.rate_rps = k == 0 ? source : source * (0.5 + 2.5 * u(rng));
    const double alpha = 0.002 + 0.02 * u(rng);  // s per item on the cheap type
    const double beta = 0.005 + 0.03 * u(rng);   // s per batch
    const double speed = 1.5 + 0.5 * u(rng);     // the dear type's speed-up
    std::vector<HardwareType> types{{"P100", 1.0, 1.0}, {"V100", 1.5, 1 / speed}};
    if (options.third_type) types.push_back({"T4", 0.6, 1.3 + 0.7 * u(rng)});
    if (options.missing_type > 0 && u(rng) < options.missing_type)
      types.erase(types.begin() + static_cast<std::ptrdiff_t>(rng() % types.size()));
    std::vector<int> batches;
    if (options.irregular_batches)
      batches = irregular_batches(rng, options.max_batch);
    else
      for (int b = 1; b <= options.max_batch; b *= 2)
        batches.push_back(b);
    const int max_s = options.spatial ? std::max(1, options.max_concurrency) : 1;
    const bool mps_only = max_s > 1 && options.mps_only > 0 && u(rng) < options.mps_only;
    for (const auto& type : types)
      for (const int b : batches)
        for (int s = mps_only ? 2 : 1; s <= max_s; ++s) {
          const double d = (beta + alpha * b) * type.factor * (1 + 0.6 * (s - 1));
          m.configs.push_back(make_cost_config(type.id, b, s, Duration::from_s(d), type.price));
        }
    sort_configs(m.configs, m.rate_rps);
    p.modules.push_back(std::move(m));
  }
  if (shape == 2 && n == 4) {
    p.edges = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
  } else if (shape == 3) {  // every module but the last feeds the last
    for (std::size_t k = 0; k + 1 < n; ++k)
      p.edges.emplace_back(k, n - 1);
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
