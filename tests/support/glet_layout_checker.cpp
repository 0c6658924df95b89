#include "tests/support/glet_layout_checker.h"

#include <algorithm>
#include <set>

namespace servescope::test {

using namespace engine;

std::vector<std::string> check_glet_layout(const GletLatency& latency, const GletLayout& layout, double epsilon_rps,
                                           double epsilon_fraction, MergeRule merge, int max_models_per_glet) {
  std::vector<std::string> out;
  const auto& sizes = latency.options().sizes;
  const auto allowed = [&](int s) { return std::ranges::find(sizes, s) != sizes.end(); };
  // Duty cycles are whole nanoseconds: b/d may round 1e-8 below the rate it was derived from.
  const auto exceeds = [](double rate, double capacity) { return rate > capacity * (1 + 1e-7); };
  for (std::size_t g = 0; g < layout.gpus.size(); ++g) {
    const auto& glets = layout.gpus[g].glets;
    const std::string gpu = "GPU " + std::to_string(g);
    int total = 0;
    for (const auto& l : glets)
      total += l.size_percent;
    if (glets.empty() || glets.size() > 2 || total != 100) out.push_back(gpu + ": glet sizes do not make one GPU");
    if (glets.size() == 1 && glets[0].size_percent != 100) out.push_back(gpu + ": a lone glet must be 100 %");
    for (const auto& l : glets)
      if (l.size_percent != 100 && !allowed(l.size_percent))
        out.push_back(gpu + ": size " + std::to_string(l.size_percent) + " % is not allowed");
    for (std::size_t k = 0; k < glets.size(); ++k) {
      const auto& l = glets[k];
      const std::string where = gpu + " glet " + std::to_string(k);
      if (l.free()) continue;
      if (static_cast<int>(l.models.size()) > max_models_per_glet) out.push_back(where + ": too many models");
      std::set<int> seen;
      std::vector<Neighbour> others;
      for (std::size_t j = 0; j < glets.size(); ++j)
        if (j != k)
          for (const auto& a : glets[j].models)
            others.push_back({a.model, a.batch, glets[j].size_percent, busy_fraction(glets[j], a)});
      Duration sum;
      std::vector<Duration> lat;
      for (const auto& a : l.models) {
        if (!seen.insert(a.model).second) out.push_back(where + ": a model twice");
        const auto eff = latency.effective(a.model, a.batch, l.size_percent, others);
        if (eff != a.latency)
          out.push_back(where + ": stored latency " + std::to_string(a.latency.to_ms()) +
                        " ms, the final neighbours give " + std::to_string(eff.to_ms()) + " ms");
        lat.push_back(eff);
        sum += eff;
      }
      const auto slo = [&](const GletAssignment& a) { return latency.models()[static_cast<std::size_t>(a.model)].slo; };
      if (l.mode == GletMode::Saturated) {
        const auto& a = l.models[0];
        if (l.models.size() != 1) out.push_back(where + ": a saturated glet hosts one model");
        if (lat[0] * 2 > slo(a)) out.push_back(where + ": saturated, but 2·L > SLO");
        if (exceeds(a.rate_rps, a.batch / lat[0].to_s())) out.push_back(where + ": carries more than b/L");
      } else {
        if (l.mode == GletMode::Residue && l.models.size() != 1) out.push_back(where + ": a residue hosts one model");
        if (sum > l.duty_cycle) out.push_back(where + ": Σ L exceeds the duty cycle");
        for (std::size_t i = 0; i < l.models.size(); ++i) {
          const auto& a = l.models[i];
          if (l.mode == GletMode::Residue && a.batch == 1) {
            // A batch of one never waits to gather: it waits at most for the batch in progress.
            if (lat[i] * 2 > slo(a)) out.push_back(where + ": batches of one, but 2·L > SLO");
            if (lat[i] > l.duty_cycle) out.push_back(where + ": batches of one do not keep up");
            continue;
          }
          const Duration wait = l.mode == GletMode::TimeShared && merge == MergeRule::Conservative ? sum : lat[i];
          if (l.duty_cycle + wait > slo(a))
            out.push_back(where + ": d + L exceeds the SLO (" + std::string(to_string(l.mode)) + ", batch " +
                          std::to_string(a.batch) + ", d " + std::to_string(l.duty_cycle.to_ms()) + " ms, L " +
                          std::to_string(wait.to_ms()) + " ms, SLO " + std::to_string(slo(a).to_ms()) + " ms)");
          if (exceeds(a.rate_rps, a.batch / l.duty_cycle.to_s())) out.push_back(where + ": carries more than b/d");
        }
      }
    }
  }
  for (std::size_t m = 0; m < latency.models().size(); ++m) {
    const double want = latency.models()[m].rate_rps, got = layout.assigned_rps(static_cast<int>(m));
    if (got < want - std::max(epsilon_rps, epsilon_fraction * want))
      out.push_back(latency.models()[m].profile->name + ": " + std::to_string(got) + " of " + std::to_string(want) +
                    " req/s placed");
  }
  return out;
}

}  // namespace servescope::test
