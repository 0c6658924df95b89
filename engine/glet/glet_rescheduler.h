// gpu-let's periodic rescheduling (seed 003 §4.1, §4.6; digest §4.10): each period (20 s) the
// measured rates become targets with headroom; a model whose target rose past the trigger is
// re-placed incrementally around everyone else's glets, a fall past it repartitions everything,
// and when neither fits the GPU count grows (SCALING) or, at the limit, the previous schedule and
// targets are kept. After a success the next period starts from the GPUs in use.
#pragma once

#include <string>
#include <vector>

#include "engine/glet/elastic_partitioning.h"
#include "engine/glet/rate_headroom.h"

namespace servescope::engine {

struct RescheduleDecision {
  RescheduleNeed need = RescheduleNeed::None;
  bool changed = false;  // a new schedule replaces the previous one
  std::string how;       // "kept", "incremental", "full repartition", "reverted: …"
  int gpus = 0;          // GPUs the schedule in force uses
};

class GletRescheduler {
 public:
  // `models` give profiles, utilisation and SLOs; their rates are ignored (periods bring them).
  GletRescheduler(std::vector<GletModel> models, GletLatencyOptions latency, GletPlannerOptions planner, int gpu_limit);

  // One period: `measured_rps` per model (the recent peak). Returns what was decided.
  RescheduleDecision on_period(const std::vector<double>& measured_rps);

  const GletPlan& schedule() const { return schedule_; }
  const std::vector<double>& targets() const { return targets_; }  // what the schedule was made for

 private:
  GletPlan plan_at(const std::vector<double>& rates, int gpus, const GletLayout& start) const;

  std::vector<GletModel> models_;
  GletLatencyOptions latency_;
  GletPlannerOptions planner_;
  int gpu_limit_;
  int gpus_ = 1;
  std::vector<double> targets_;
  GletPlan schedule_;
};

}  // namespace servescope::engine
