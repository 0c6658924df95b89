#include "engine/analysis/goodput_search.h"

#include <map>

#include "engine/serving/run_result_json.h"

namespace servescope::engine {

GoodputResult search_goodput(const Scenario& scenario, SimulationSpec spec, const GoodputOptions& options,
                             const std::function<void(const GoodputProbe&)>& on_probe) {
  GoodputResult result;
  result.nominal_capacity_rps = nominal_capacity_rps(prepare_simulation(scenario, spec));
  std::map<double, GoodputProbe> cache;
  auto probe = [&](double rate) -> const GoodputProbe& {
    if (auto it = cache.find(rate); it != cache.end()) return it->second;
    spec.rate_rps = rate;
    spec.load_factor.reset();
    const auto run = simulate(scenario, spec);
    const auto s = summarize_run(run);
    GoodputProbe p{rate, s.slo_attainment, s.worst_model_miss, s.goodput_rps};
    result.probes.push_back(p);
    if (on_probe) on_probe(p);
    return cache.emplace(rate, p).first->second;
  };
  auto search = [&](const std::function<bool(const GoodputProbe&)>& ok) {
    double lo = 0, hi = std::max(1.0, result.nominal_capacity_rps);
    // Bracket: grow until a probe fails (the nominal capacity is an estimate, not a bound).
    for (int i = 0; i < 8 && ok(probe(hi)); ++i) {
      lo = hi;
      hi *= 1.5;
    }
    while ((hi - lo) > options.precision * hi && static_cast<int>(result.probes.size()) < options.max_probes) {
      const double mid = (lo + hi) / 2;
      if (ok(probe(mid)))
        lo = mid;
      else
        hi = mid;
    }
    return lo;
  };
  const double miss_limit = 1.0 - options.model_quantile;
  result.goodput_rps = search([&](const GoodputProbe& p) { return p.worst_model_miss <= miss_limit; });
  result.max_rate_at_target_rps =
      search([&](const GoodputProbe& p) { return p.slo_attainment >= options.attainment_target; });
  return result;
}

}  // namespace servescope::engine
