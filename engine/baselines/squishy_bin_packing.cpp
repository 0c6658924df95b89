#include "engine/baselines/squishy_bin_packing.h"

#include <algorithm>
#include <cmath>

namespace servescope::engine {
namespace {

struct Residual {
  SbpGpu gpu;
};

// Batch for model i on a node with duty cycle d: what arrives in one cycle.
int batch_for(double rate_rps, Duration duty) {
  return std::max(1, static_cast<int>(std::ceil(rate_rps * duty.to_s() - 1e-9)));
}

bool node_feasible(const std::vector<SbpModel>& models, SbpGpu& node, Duration duty) {
  Duration busy;
  for (auto& s : node.models) {
    const auto& m = models[s.model];
    s.batch = batch_for(s.rate_rps, duty);
    if (s.batch > m.latency.max_batch()) return false;
    const auto l = m.latency.at(s.batch);
    if (duty + l > m.slo) return false;
    busy += l;
  }
  if (busy > duty) return false;
  node.duty_cycle = duty;
  node.occupancy = busy.to_s() / duty.to_s();
  return true;
}

SbpPlan pack(const std::vector<SbpModel>& models, double scale) {
  SbpPlan plan;
  plan.rate_scale = scale;
  std::vector<SbpGpu> residuals;
  for (std::uint32_t i = 0; i < models.size(); ++i) {
    const auto& m = models[i];
    double rate = m.rate_rps * scale;
    if (rate <= 0) continue;
    int b_sat = m.latency.largest_within(Duration::nanoseconds(m.slo.count_ns() / 2), m.latency.max_batch());
    if (b_sat == 0) {
      // ℓ(1) > SLO/2: no batch is safe against a full wait, but batch 1 still meets the SLO for
      // requests that find the GPU idle or nearly done. Nexus serves such models anyway.
      if (m.latency.at(1) > m.slo) {
        plan.unplaceable.push_back(m.name);
        continue;
      }
      plan.best_effort.push_back(m.name);
      b_sat = 1;
    }
    const double t_sat = b_sat / m.latency.at(b_sat).to_s();
    const auto full = static_cast<int>(std::floor(rate / t_sat));
    for (int g = 0; g < full; ++g)
      plan.gpus.push_back(SbpGpu{{{i, b_sat, t_sat}}, m.latency.at(b_sat), 1.0, true});
    rate -= full * t_sat;
    if (rate <= 1e-9) continue;
    // Residual: the largest b whose collection time b/rate plus execution fits in the SLO and
    // whose execution keeps up with the collection (ℓ(b) ≤ b/rate, else the queue grows without
    // bound). When no b does both, the residual gets a GPU of its own at b_sat, which carries it
    // because rate < t_sat.
    int b = 0;
    for (int c = b_sat; c >= 1 && b == 0; --c) {
      const Duration collect = Duration::from_s(c / rate);
      if (m.latency.at(c) <= collect && collect + m.latency.at(c) <= m.slo) b = c;
    }
    if (b == 0) {
      const Duration l = m.latency.at(b_sat);
      residuals.push_back(SbpGpu{{{i, b_sat, rate}}, l, rate / t_sat, false});
      continue;
    }
    const Duration duty = Duration::from_s(b / rate);
    residuals.push_back(SbpGpu{{{i, b, rate}}, duty, m.latency.at(b).to_s() / duty.to_s(), false});
  }
  // Best fit: largest residuals first, each onto the node it fills the most.
  std::ranges::sort(residuals, [](const SbpGpu& a, const SbpGpu& b) { return a.occupancy > b.occupancy; });
  std::vector<SbpGpu> nodes;
  for (auto& r : residuals) {
    int best = -1;
    SbpGpu best_node;
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      SbpGpu merged = nodes[n];
      merged.models.push_back(r.models.front());
      const Duration duty = std::min(nodes[n].duty_cycle, r.duty_cycle);
      if (node_feasible(models, merged, duty) && (best < 0 || merged.occupancy > best_node.occupancy)) {
        best = static_cast<int>(n);
        best_node = merged;
      }
    }
    if (best >= 0)
      nodes[static_cast<std::size_t>(best)] = best_node;
    else
      nodes.push_back(r);
  }
  for (auto& n : nodes)
    plan.gpus.push_back(std::move(n));
  return plan;
}

}  // namespace

SbpPlan squishy_bin_packing(const std::vector<SbpModel>& models, int max_gpus, bool use_all_gpus) {
  auto plan = pack(models, 1.0);
  const bool fits = static_cast<int>(plan.gpus.size()) <= max_gpus;
  if (max_gpus <= 0 || (fits && !use_all_gpus)) return plan;
  double lo = 0, hi = 1;
  if (fits) {
    // Grow until it no longer fits, then bisect between the last fit and the first overflow.
    lo = 1;
    hi = 2;
    while (hi < 1e6 && static_cast<int>(pack(models, hi).gpus.size()) <= max_gpus) {
      lo = hi;
      hi *= 2;
    }
  }
  SbpPlan best = pack(models, lo);  // the largest scale known to fit so far
  for (int it = 0; it < 30; ++it) {
    const double mid = (lo + hi) / 2;
    auto p = pack(models, mid);
    if (static_cast<int>(p.gpus.size()) <= max_gpus) {
      lo = mid;
      best = std::move(p);
    } else {
      hi = mid;
    }
  }
  return best;
}

}  // namespace servescope::engine
