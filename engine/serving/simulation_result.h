// What one run of a scenario through a serving system reports: the layout it ran on (models,
// GPUs or vGPUs, their types, shares and servers), the offered rate against the system's nominal
// capacity, the metrics' aggregates and, when asked for, the timeline. prepare_serving fills the
// description before the first event; the simulator or the live scheduler adds what happened.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/dataplane/controller_cost.h"
#include "engine/dataplane/run_layout.h"
#include "engine/dataplane/run_recorder.h"
#include "engine/glet/glet_serving.h"
#include "engine/metrics/gpu_class_busy.h"
#include "engine/metrics/run_metrics.h"
#include "engine/sim/simulator.h"
#include "model/core/time.h"

namespace servescope::engine {

struct SubclusterSummary {
  std::size_t gpus = 0;
  std::vector<std::string> models;
  double rate_rps = 0;  // offered to its models
};

// The layout it ran on (RunLayout) and what happened there.
struct SimulationResult : RunLayout {
  double offered_rate_rps = 0;
  double nominal_capacity_rps = 0;
  Duration duration, warmup;
  std::uint64_t seed = 0;
  double runtime_jitter = 0;
  bool sampled_runtime = false;    // batches were drawn from the profiles' measured distributions
  Duration runtime_spell;          // the longest spell they were drawn in (spell_draws.h); zero: none
  bool contention = false;         // slots of one device slowed each other as the profiles measured
  std::string execution_profiles;  // batches ran by these profiles, not the scenario's ("": the scenario's)
  double latency_quantile = 0;     // planned and reserved at this quantile of measured latencies; 0: none kept
  std::optional<ControllerStats> controller;  // with SimulationSpec::controller
  std::unique_ptr<MetricsCollector> metrics;
  std::vector<TimelineSpan> timeline;
  std::vector<TransferSpan> transfers;
  std::vector<QueueSample> queue_samples;  // with the timeline: each model's queue depth
  std::vector<SpanRequest> span_requests;  // with the timeline: every batch's requests
  std::vector<DropMark> drops;             // with the timeline: every dropped request
  std::vector<RunNotice> notices;          // with the timeline: what the serving system said
  SimulatorStats sim;
  double wall_seconds = 0;
  std::vector<SubclusterSummary> subclusters;  // one entry when the cluster is not split
  std::string partition_status;
  std::string plan_system;   // the planner behind a pipeline data plane's plan
  std::uint64_t probes = 0;  // probe() calls of the reservation data plane
  std::uint64_t dispatches = 0;
  std::vector<Reorganisation> reorganisations;  // glet-serving: when each schedule took over
};

// Temporal utilisation per GPU type over every physical GPU of that type in the cluster: each
// (v)GPU's busy time weighted by its share, over the type's GPUs × the measured window (PPipe
// digest §6.4, with the whole class as the denominator); the run's charts use the same definition
// (metrics/gpu_class_busy.h).
std::map<std::string, double> busy_by_gpu_type(const SimulationResult& result);
std::vector<GpuSlotClass> gpu_slot_classes(const SimulationResult& result);

}  // namespace servescope::engine
