// PPipe's pooled pipelines as a serving family (seed 000): the planners PPipe, NP and DART-r,
// which write a pipeline plan, and the two data planes that run one, reservation-based adaptive
// batching (§4.6) and the reactive per-pool baseline.
#pragma once

#include <memory>

#include "engine/serving/serving_system.h"

namespace servescope::engine {

std::unique_ptr<ServingFamily> ppipe_family();

}  // namespace servescope::engine
