// Nexus's squishy bin packing (SOSP'19 §6.1, as summarised in seed 002 §3.3 and used as the
// SBP baseline in seed 003 §4.11): a model with a high rate gets whole GPUs running the largest
// batch b with 2·ℓ(b) ≤ SLO; its leftover rate becomes a residual load with a duty cycle, and
// residuals share GPUs (best fit by occupancy) when every co-located model still meets
// duty + ℓ_i(b_i) ≤ SLO_i and the batches fit in the duty cycle. Whole GPUs, time sharing only.
#pragma once

#include <string>
#include <vector>

#include "engine/dataplane/batch_latency.h"

namespace servescope::engine {

struct SbpModel {
  std::string name;
  BatchLatency latency;
  Duration slo;
  double rate_rps = 0;
};

struct SbpShare {
  std::uint32_t model = 0;
  int batch = 1;
  double rate_rps = 0;  // the part of the model's rate this GPU serves
};

struct SbpGpu {
  std::vector<SbpShare> models;
  Duration duty_cycle;
  double occupancy = 0;  // Σ ℓ_i(b_i) / duty
  bool saturated = false;
};

struct SbpPlan {
  std::vector<SbpGpu> gpus;
  double rate_scale = 1;                 // < 1 when the full rates did not fit in the GPUs given
  std::vector<std::string> unplaceable;  // models that cannot meet their SLO at any batch
  std::vector<std::string> best_effort;  // ℓ(1) > SLO/2: served at batch 1, some requests miss
};

// Packs the models' rates; with max_gpus > 0 the rates are scaled down uniformly until the plan
// fits (rate_scale says by how much). With `use_all_gpus` they are also scaled up, to the
// largest uniform rate the GPUs can carry: spare GPUs become headroom for every model instead
// of idling, as a serving system with a fixed cluster would use them.
SbpPlan squishy_bin_packing(const std::vector<SbpModel>& models, int max_gpus = 0, bool use_all_gpus = false);

}  // namespace servescope::engine
