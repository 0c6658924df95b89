// What rate gpu-let plans for (seed 003 §4.1, §4.6; digest §4.10 and gap 11): the prototype plans
// for the recent peak rate plus headroom (×1.5 under 125 req/s, ×1.2 above), because Poisson
// arrivals at a glet's planned occupancy would otherwise queue past the SLO; and it reschedules
// only when that target rises by more than 5 % and 10 req/s, or falls by more than 10 %.
#pragma once

#include <vector>

#include "engine/glet/glet_latency.h"

namespace servescope::engine {

// The prototype's headroom: 100 → 150, 200 → 240 req/s.
double headroom_target_rps(double peak_rps);

// Every model's rate replaced by its headroom target.
std::vector<GletModel> with_headroom(std::vector<GletModel> models);

enum class RescheduleNeed { None, Incremental, Full };
// From the target the current plan was made for to the newly measured one: a rise by more than
// 5 % or more than 10 req/s re-places that model; a fall by more than 10 % (or to nothing)
// repartitions everything.
RescheduleNeed reschedule_need(double planned_target_rps, double new_target_rps);

}  // namespace servescope::engine
