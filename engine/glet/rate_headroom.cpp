#include "engine/glet/rate_headroom.h"

namespace servescope::engine {

double headroom_target_rps(double peak_rps) {
  return peak_rps * (peak_rps < 125 ? 1.5 : 1.2);
}

std::vector<GletModel> with_headroom(std::vector<GletModel> models) {
  for (auto& m : models)
    m.rate_rps = headroom_target_rps(m.rate_rps);
  return models;
}

RescheduleNeed reschedule_need(double planned_target_rps, double new_target_rps) {
  const double change = new_target_rps - planned_target_rps;
  if (new_target_rps <= 0 && planned_target_rps > 0) return RescheduleNeed::Full;
  if (change < -0.10 * planned_target_rps) return RescheduleNeed::Full;
  if (change > 0.05 * planned_target_rps || change > 10) return RescheduleNeed::Incremental;
  return RescheduleNeed::None;
}

}  // namespace servescope::engine
