// ResNet50 with Symphony's Table 2 profile (α 1.053 ms, β 5.072 ms, SLO 25 ms) on 8 GTX 1080 Ti,
// one Poisson workload: the single-model case Symphony's tests and the controller's share.
#pragma once

#include "model/scenario/scenario.h"

namespace servescope::test {

inline Scenario resnet50_on_8(double rate_rps) {
  Scenario s;
  s.name = "ResNet50 on 8 GTX 1080 Ti";
  s.cluster.nodes.push_back({"g", "GTX1080Ti", 1, 8, 10, 10, std::nullopt});
  ModelProfile p;
  p.name = "ResNet50";
  p.form = ProfileForm::Linear;
  p.default_slo = Duration::milliseconds(25);
  p.linear_fits.push_back(
      {"GTX1080Ti", GpuShare::whole(), Duration::microseconds(1053), Duration::microseconds(5072), 0});
  s.profiles.models.push_back(p);
  s.workloads.push_back({"w",
                         rate_rps,
                         PoissonArrivals{},
                         {{TargetKind::Model, "ResNet50", 1.0, std::nullopt}},
                         Popularity::Explicit,
                         0.9});
  return s;
}

}  // namespace servescope::test
