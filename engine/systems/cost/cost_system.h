// The cost planners as a serving family (seeds 001 Piccolo and 004 Harpagon): least-occupancy-
// cost module configurations for one application under a worst-case end-to-end SLO, with the
// baselines (Nexus, Scrooge, InferLine, Clipper), their ablations and the brute-force optimum.
#pragma once

#include <memory>

#include "engine/serving/serving_system.h"

namespace servescope::engine {

std::unique_ptr<ServingFamily> cost_family();

}  // namespace servescope::engine
