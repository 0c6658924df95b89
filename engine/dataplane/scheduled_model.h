// A model as a single-kernel data plane schedules it (Symphony seed 002 §3 and the baselines it
// is compared with, Nexus and Shepherd): its name, its latency on the GPU type it is served on,
// and its SLO. Shared by the Symphony family and the baselines, so it lives with the data-plane
// interfaces rather than in either.
#pragma once

#include <string>

#include "engine/dataplane/batch_latency.h"
#include "model/core/time.h"

namespace servescope::engine {

struct ScheduledModel {
  std::string name;
  BatchLatency latency;  // on the GPU type it is served on
  Duration slo;
};

}  // namespace servescope::engine
