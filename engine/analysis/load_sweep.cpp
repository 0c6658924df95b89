#include "engine/analysis/load_sweep.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "model/core/error.h"

namespace servescope::engine {

const LoadPoint* LoadSweepResult::best() const {
  const LoadPoint* out = nullptr;
  for (const auto& p : points)
    if (p.load_factor == max_load_factor && max_load_factor > 0) out = &p;
  return out;
}

int LoadSweepOptions::points() const {
  return static_cast<int>(std::floor((to - from) / step + 1e-9)) + 1;
}

LoadSweepResult sweep_load_factors(const LoadSweepOptions& o, const std::function<LoadPoint(double)>& measure) {
  if (!(o.step > 0) || !(o.from > 0) || o.to < o.from)
    throw QueryError("the load-factor range must be positive and increasing, with a positive step");
  LoadSweepResult r;
  // Integer steps from the top, so 1.0 − 19 × 0.05 lands on 0.05 and not on 0.04999….
  for (int i = 0; i < o.points(); ++i) {
    const double lf = std::round((o.to - i * o.step) * 1e9) / 1e9;
    auto p = measure(lf);
    p.load_factor = lf;
    const bool meets = p.slo_attainment >= o.attainment_target;
    r.points.push_back(std::move(p));
    if (meets && lf > r.max_load_factor) r.max_load_factor = lf;
    if (meets && o.stop_at_first) break;
  }
  return r;
}

LoadSweepResult sweep_load(const Scenario& scenario, SimulationSpec spec, const LoadSweepOptions& options,
                           const std::function<void(const LoadPoint&)>& on_point) {
  double base = options.base_rate_rps;
  std::string plan_system;
  spec.timeline = false;
  spec.request_log = nullptr;
  auto result = sweep_load_factors(options, [&](double lf) {
    spec.load_factor.reset();
    if (base > 0)
      spec.rate_rps = lf * base;
    else
      spec.load_factor = lf;
    const auto run = simulate(scenario, spec);
    if (base <= 0) base = run.nominal_capacity_rps;
    plan_system = run.plan_system;
    const auto total = run.metrics->total();
    LoadPoint p;
    p.load_factor = lf;
    p.rate_rps = run.offered_rate_rps;
    p.slo_attainment = total.attainment();
    p.dropped = total.dropped;
    p.late = total.late();
    p.goodput_rps = static_cast<double>(total.on_time) / (run.duration - run.warmup).to_s();
    p.busy_by_type = busy_by_gpu_type(run);
    if (on_point) on_point(p);
    return p;
  });
  result.base_rate_rps = base;
  result.plan_system = std::move(plan_system);
  return result;
}

nlohmann::json load_sweep_to_json(const LoadSweepResult& r, const SimulationSpec& spec,
                                  const std::string& scenario_name) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : r.points)
    points.push_back({{"load_factor", p.load_factor},
                      {"rate_rps", p.rate_rps},
                      {"slo_attainment", p.slo_attainment},
                      {"goodput_rps", p.goodput_rps},
                      {"dropped", p.dropped},
                      {"late", p.late},
                      {"busy_by_type", p.busy_by_type}});
  const auto* best = r.best();
  return {{"schema_version", 1},
          {"kind", "load-sweep"},
          {"system", spec.system},
          {"plan_system", r.plan_system},
          {"scenario", scenario_name},
          {"duration_s", spec.duration.to_s()},
          {"seed", spec.seed},
          {"base_rate_rps", r.base_rate_rps},
          {"max_load_factor", r.max_load_factor},
          {"busy_by_type_at_max", best ? nlohmann::json(best->busy_by_type) : nlohmann::json::object()},
          {"points", points}};
}

}  // namespace servescope::engine
