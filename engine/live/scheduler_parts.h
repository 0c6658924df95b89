// What the live scheduler's source files share and its public header keeps to itself: the check
// that a prepared system can run on live workers.
#pragma once

#include "engine/serving/prepared_serving.h"

namespace servescope::engine::live {

// What live workers cannot do yet: preempt, re-split a GPU, run an application's DAG. Throws
// QueryError saying which.
void check_servable_live(const PreparedServing& prepared);

}  // namespace servescope::engine::live
