// What happened in a stretch of a run (README "The GUI", range summary; Perfetto's area
// selection): the batches that started in it, how busy each slot was, and the requests that
// finished, were late or were dropped in it, with their latency percentiles. The timeline view
// marks a range; the Run tab shows this beside it. Built once per timeline, then each range
// costs a binary search per row and a selection over the requests that finished inside it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/timeline/timeline_index.h"

namespace servescope::engine {

struct RangeSummary {
  Time from, to;
  std::uint64_t batches = 0;  // started in [from, to)
  // Per index row (TimelineIndex order): the share of [from, to) its slot was busy, 0–1.
  std::vector<double> busy;
  // A request finishes when its last batch ends (a pipeline's last stage); preempted batches
  // finish nothing. Empty when the timeline keeps no request lists.
  std::optional<std::uint64_t> finished, late;
  std::uint64_t dropped = 0;         // requests dropped in [from, to)
  std::optional<Duration> p50, p99;  // latency (arrival to finish) of those that finished
};

class RangeSummariser {
 public:
  // Keeps references: `data` and `index` must outlive it.
  RangeSummariser(const TimelineData& data, const TimelineIndex& index);
  RangeSummary summarise(Time from, Time to) const;

 private:
  struct Finish {
    Time at;
    Duration latency;
    bool late = false;
  };
  const TimelineData& data_;
  const TimelineIndex& index_;
  std::vector<Finish> finishes_;  // one per request, by finish time
  bool has_requests_ = false;
};

// How busy `row` was over [from, end) in `bins` equal bins, each 0–1: a utilisation sparkline
// (a live view's history starts later than 0).
std::vector<float> busy_profile(const TimelineIndex& index, std::size_t row, Time from, Time end, std::size_t bins);

// The nearest-rank percentile `p` (0–100) of `values`, reordered in place; nullopt when empty.
std::optional<Duration> nearest_rank(std::vector<Duration>& values, double p);

}  // namespace servescope::engine
