// Closed-form capacity of one model on N identical GPUs (Symphony, seed 002 §1.6, Eqs. 1–2):
// without coordination each GPU may wait a whole batch before running the next, so a batch
// must fit in SLO/2; with staggered execution a request waits at most ℓ(b)/N, so it must fit
// in SLO/(1 + 1/N). The ratio of the two throughputs is the gain deferred batching can reach.
#pragma once

#include <string_view>

#include "model/profile/model_profile.h"

namespace servescope::engine {

// Largest profiled batch b with latency(b) ≤ budget on (gpu, share); 0 when even batch 1 is over
// or the profile has no batches there. The data planes' BatchLatency answers it, so the closed
// form and the schedulers agree; like them it throws QueryError for a table that does not start
// at batch 1.
int largest_batch_within(const ModelProfile& profile, std::string_view gpu, GpuShare share, Duration budget);

struct StaggeredCapacity {
  int gpus = 0;
  int batch_no_coordination = 0;
  double throughput_no_coordination_rps = 0;
  int batch_staggered = 0;
  double throughput_staggered_rps = 0;
};

StaggeredCapacity staggered_capacity(const ModelProfile& profile, std::string_view gpu, int gpus, Duration slo);

}  // namespace servescope::engine
