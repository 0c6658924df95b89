// Aggregates of a run, streamed from the recorder hooks so memory stays bounded however long
// the run: per model and overall SLO attainment (a drop counts as a miss), goodput, latency and
// queueing-delay histograms, batch-size histograms, drops by reason, and per-GPU busy time in
// fixed bins. Only requests that arrive inside the measurement window count.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/dataplane/run_recorder.h"
#include "engine/metrics/latency_histogram.h"

namespace servescope::engine {

struct ModelRunStats {
  std::uint64_t arrivals = 0;
  std::uint64_t completed = 0;
  std::uint64_t on_time = 0;  // completed by the deadline
  std::uint64_t dropped = 0;
  std::array<std::uint64_t, kDropReasonCount> drops_by_reason{};
  LatencyHistogram latency{6};
  LatencyHistogram queueing{6};
  std::vector<std::uint64_t> batch_sizes;  // [size] = batches of that size
  std::uint64_t batches = 0;

  std::uint64_t late() const { return completed - on_time; }
  std::uint64_t unfinished() const { return arrivals - completed - dropped; }
  double attainment() const { return arrivals ? static_cast<double>(on_time) / static_cast<double>(arrivals) : 1.0; }
};

class MetricsCollector final : public RunRecorder {
 public:
  MetricsCollector(std::size_t models, std::size_t gpus, Time window_start, Time window_end, Duration bin);

  void on_arrival(const Request& r) override;
  void on_drop(const Request& r, DropReason why, Time when) override;
  void on_batch(const Batch& b, Time start, Time end, bool completed) override;
  void on_complete(const Request& r, Time start, Time end) override;

  const std::vector<ModelRunStats>& models() const { return models_; }
  ModelRunStats total() const;  // every model merged
  Time window_start() const { return window_start_; }
  Time window_end() const { return window_end_; }
  Duration bin() const { return bin_; }
  // A live run's window ends when it is looked at, not when it started: counts already folded
  // stay, busy fractions are then over [window_start, end).
  void set_window_end(Time end) { window_end_ = end; }
  // Busy nanoseconds of each GPU per bin (bins from time 0), and per-bin arrivals / on-time
  // completions by arrival time, for time-series charts.
  const std::vector<std::vector<std::int64_t>>& gpu_busy_ns() const { return busy_; }
  const std::vector<std::uint64_t>& arrivals_per_bin() const { return arrivals_bin_; }
  const std::vector<std::uint64_t>& on_time_per_bin() const { return on_time_bin_; }
  // Fraction of the window each GPU was busy.
  std::vector<double> gpu_busy_fraction() const;

 private:
  bool counts(const Request& r) const { return r.arrival >= window_start_ && r.arrival < window_end_; }
  std::size_t bin_of(Time t) const {
    return static_cast<std::size_t>(std::max<std::int64_t>(0, t.count_ns() / bin_.count_ns()));
  }

  std::vector<ModelRunStats> models_;
  Time window_start_, window_end_;
  Duration bin_;
  std::vector<std::vector<std::int64_t>> busy_;
  std::vector<std::uint64_t> arrivals_bin_, on_time_bin_;
};

}  // namespace servescope::engine
