// A run watched live: what the scheduler serves (models, vGPU slots, servers: the `run` object
// of its welcome) and the events it has streamed so far, folded into the simulator's own
// recorders. A snapshot is a SimulationResult like a simulated run's, so the timeline, charts,
// exports and the run file format take a live run unchanged (a run recorded live is reopened like a
// simulated run: README "Live deployment").
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>

#include "engine/metrics/run_metrics.h"
#include "engine/serving/simulation_result.h"

namespace servescope::engine::live {

// The run's description as the scheduler's welcome carries it, and back. Reading throws
// InputError naming `source` and the JSON path of a bad value.
nlohmann::json describe_run(const SimulationResult& result);
SimulationResult run_from_description(const nlohmann::json& run, const std::string& source);

class LiveRun {
 public:
  // `warmup`: arrivals before it are left out of the aggregates, as in a simulation. `origin`:
  // the scheduler's time that becomes this run's 0 (a viewer that joins a deployment running
  // for days starts its timeline, and its utilisation bins, when it joined).
  // One-second utilisation bins keep a day-long session at 86,400 bins per GPU.
  LiveRun(SimulationResult description, Duration warmup, Duration utilisation_bin = Duration::seconds(1),
          Time origin = Time());

  // The scheduler's clock now (as the caller knows it): events may not name a time more than
  // 10 s after it. Without a horizon, a time more than an hour past the latest event is refused.
  void set_horizon(Time scheduler_now) { horizon_ = scheduler_now - origin_; }

  // Folds an `events` frame; refuses (ProtocolError) records naming a model or GPU the run does
  // not have, or times out of order (an end before its start, an instant more than an hour
  // before the origin or past the latest event), so a confused stream can neither index past
  // the tables nor make the aggregates allocate for a time that never came.
  void apply(std::span<const std::uint8_t> events);
  std::uint64_t events() const { return events_; }
  Time latest() const { return latest_; }  // the latest time any event named
  const SimulationResult& description() const { return description_; }
  const TimelineRecorder& timeline() const { return timeline_; }
  const MetricsCollector& metrics() const { return metrics_; }

  // The run so far as a result: aggregates over [warmup, latest()], and the timeline (all of
  // it, unless a viewer has been taking it).
  SimulationResult snapshot() const;
  // The same without the timeline: what a viewer that takes the timeline in chunks reads.
  SimulationResult aggregates() const;
  // The timeline recorded since the last take (TimelineRecorder::take): a viewer that takes it
  // regularly keeps this run's memory flat however long it is watched.
  TimelineChunk take_timeline() { return timeline_.take(); }
  // Lets go of timeline detail that ended before `t` and nobody took.
  void forget_timeline_before(Time t) { timeline_.forget_before(t); }

 private:
  class Checked;
  SimulationResult description_;
  MetricsCollector metrics_;
  TimelineRecorder timeline_;
  std::uint64_t events_ = 0;
  Time origin_;
  Time latest_;
  std::optional<Time> horizon_;
};

}  // namespace servescope::engine::live
