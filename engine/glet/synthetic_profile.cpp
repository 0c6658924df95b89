#include "engine/glet/synthetic_profile.h"

#include <algorithm>
#include <cmath>

#include "model/core/error.h"

namespace servescope::engine {

ModelProfile synthetic_glet_profile(const std::string& name, const std::string& gpu, Duration slo,
                                    const std::vector<int>& sizes_percent, const SyntheticGletShape& shape) {
  const double c0 = shape.c0.to_s(), half = slo.to_s() / 2;
  if (half <= c0)
    throw QueryError(name + ": an SLO of " + std::to_string(slo.to_ms()) +
                     " ms leaves no room for the synthetic profile's fixed cost");
  const auto share_used = [&](int b, double p) {
    return std::min(p, std::min(1.0, std::pow(b / shape.knee_batch, shape.gamma)));
  };
  const double w = (half - c0) * share_used(shape.max_batch, 1.0) / shape.max_batch;
  ModelProfile m;
  m.name = name;
  m.description = "synthetic glet profile: L(b,p) = c0 + w*b / min(p, (b/B)^gamma, 1), L(32, 100 %) = SLO/2";
  m.form = ProfileForm::Table;
  m.default_slo = slo;
  for (const int p : sizes_percent) {
    std::vector<Duration> lat;
    for (int b = 1; b <= shape.max_batch; ++b)
      lat.push_back(Duration::from_s(c0 + w * b / share_used(b, p / 100.0)));
    m.batch_tables.push_back({gpu, GpuShare::percent(p), BatchCurve(batch_range(shape.max_batch), std::move(lat))});
  }
  return m;
}

}  // namespace servescope::engine
