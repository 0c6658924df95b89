#include "engine/glet/glet_rescheduler.h"

#include <algorithm>

#include "model/core/error.h"

namespace servescope::engine {

GletRescheduler::GletRescheduler(std::vector<GletModel> models, GletLatencyOptions latency, GletPlannerOptions planner,
                                 int gpu_limit)
    : models_(std::move(models)),
      latency_(std::move(latency)),
      planner_(planner),
      gpu_limit_(gpu_limit),
      targets_(models_.size(), 0) {
  if (gpu_limit_ < 1) throw QueryError("glet: the GPU limit must be at least 1");
  schedule_.feasible = true;
  schedule_.layout.gpus.assign(1, GletGpu{{Glet{100, {}, {}, {}}}});
}

GletPlan GletRescheduler::plan_at(const std::vector<double>& rates, int gpus, const GletLayout& start) const {
  auto models = models_;
  for (std::size_t m = 0; m < models.size(); ++m)
    models[m].rate_rps = rates[m];
  return elastic_partitioning(GletLatency(std::move(models), latency_), planner_, gpus, start);
}

RescheduleDecision GletRescheduler::on_period(const std::vector<double>& measured_rps) {
  if (measured_rps.size() != models_.size())
    throw QueryError("glet: " + std::to_string(measured_rps.size()) + " rates for " + std::to_string(models_.size()) +
                     " models");
  std::vector<double> targets(models_.size());
  std::vector<bool> rose(models_.size(), false);
  RescheduleDecision d;
  for (std::size_t m = 0; m < models_.size(); ++m) {
    targets[m] = headroom_target_rps(measured_rps[m]);
    const auto need = reschedule_need(targets_[m], targets[m]);
    rose[m] = need == RescheduleNeed::Incremental;
    if (need == RescheduleNeed::Full || (need == RescheduleNeed::Incremental && d.need == RescheduleNeed::None))
      d.need = need;
  }
  if (d.need == RescheduleNeed::None) {
    d.how = "kept";
    d.gpus = schedule_.layout.gpus_used();
    return d;
  }
  GletPlan next;
  if (d.need == RescheduleNeed::Incremental) {
    // Clear the risen models' glets, keep everyone else where they are (no re-splitting of an
    // occupied GPU), and place only the risen models at their new targets.
    GletLayout start = schedule_.layout;
    start.gpus.resize(static_cast<std::size_t>(std::max<int>(gpus_, static_cast<int>(start.gpus.size()))),
                      GletGpu{{Glet{100, {}, {}, {}}}});
    for (auto& gpu : start.gpus)
      for (auto& l : gpu.glets) {
        std::erase_if(l.models, [&](const GletAssignment& a) { return rose[static_cast<std::size_t>(a.model)]; });
        if (l.models.empty()) l = Glet{l.size_percent, {}, {}, {}};
      }
    std::vector<double> rates(models_.size(), 0);
    for (std::size_t m = 0; m < models_.size(); ++m)
      if (rose[m]) rates[m] = targets[m];
    next = plan_at(rates, static_cast<int>(start.gpus.size()), start);
    d.how = "incremental";
  }
  // A fall, or an incremental pass that did not fit: repartition everything, growing the GPUs.
  for (int n = gpus_; !next.feasible && n <= gpu_limit_; ++n) {
    next = plan_at(targets, n, {});
    d.how = "full repartition";
  }
  if (!next.feasible) {
    d.how =
        "reverted: " + next.message + " (up to " + std::to_string(gpu_limit_) + " GPUs); the previous schedule stays";
    d.gpus = schedule_.layout.gpus_used();
    return d;
  }
  // Report every model at its target, including those the incremental pass left in place.
  for (std::size_t m = 0; m < next.models.size(); ++m) {
    next.models[m].rate_rps = targets[m];
    next.models[m].assigned_rps = next.layout.assigned_rps(static_cast<int>(m));
  }
  schedule_ = std::move(next);
  targets_ = std::move(targets);
  gpus_ = std::max(1, schedule_.layout.gpus_used());
  d.changed = true;
  d.gpus = schedule_.layout.gpus_used();
  return d;
}

}  // namespace servescope::engine
