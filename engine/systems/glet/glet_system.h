// gpu-let as a serving family (seed 003): the planners (glet's elastic partitioning and its
// baselines SBP, greedy best-fit, the exhaustive ideal), which write a glet plan; the glet data
// plane that runs one; and glet-serving, which plans and re-plans every period on its own. Both
// planes run application DAGs and meet the scenario's interference model at run time.
#pragma once

#include <memory>

#include "engine/serving/serving_system.h"

namespace servescope::engine {

std::unique_ptr<ServingFamily> glet_family();

}  // namespace servescope::engine
