// A stand-in latency profile for glet sizes when nothing was measured (glet digest §4.1, [D]):
// L(b, p) = c0 + w·b / min(p/100, (b/B)^γ ∧ 1), so small batches barely care about the glet size
// and large ones scale about 1/p (the shape of seed 003's Fig. 3), with w set so that a batch of
// 32 on the whole GPU takes SLO/2 (the paper's SLO = 2 × solo latency, Table 4).
#pragma once

#include <string>
#include <vector>

#include "model/core/time.h"
#include "model/profile/model_profile.h"

namespace servescope::engine {

struct SyntheticGletShape {
  Duration c0 = Duration::milliseconds(2);
  double knee_batch = 8;  // B
  double gamma = 0.5;     // γ
  int max_batch = 32;
};

// Batches 1..max_batch at every size in `sizes_percent`, on `gpu`; default_slo = `slo`.
// Throws QueryError when the SLO leaves no room: SLO/2 ≤ c0.
ModelProfile synthetic_glet_profile(const std::string& name, const std::string& gpu, Duration slo,
                                    const std::vector<int>& sizes_percent, const SyntheticGletShape& shape = {});

}  // namespace servescope::engine
