// What happened in a stretch of a run (README "The GUI", range summary; Perfetto's area
// selection): the batches that started in it, how busy each slot was, and the requests that
// finished, were late or were dropped in it, with their latency percentiles, in all and per model
// (the violations table, issue 47 §2), each model with the batch to look at first. The timeline view
// marks a range; the Run tab shows this beside it. Built once per timeline, then each range
// costs a binary search per row and a selection over the requests that finished inside it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/timeline/timeline_index.h"

namespace servescope::engine {

// One model's part of a range. A request counts for the model of the batch it finished in (an
// application's request, for its last module's).
struct ModelViolations {
  std::uint32_t model = 0;
  bool requests_known = false;  // the timeline keeps request lists: finished, late, p50, p99 hold
  std::uint64_t finished = 0, late = 0;
  std::array<std::uint64_t, kDropReasonCount> dropped{};
  std::optional<Duration> p50, p99;
  // The batch whose request missed its deadline by the most (an index into the spans), and the
  // first drop's time: where a violation of this model is seen best.
  std::optional<std::uint32_t> worst_span;
  Duration worst_lateness;
  std::optional<Time> first_drop;

  std::uint64_t dropped_total() const;
  // On time over finished and dropped, 0–100; nullopt when neither, or the requests are not known.
  std::optional<double> attainment_pct() const;
};

struct RangeSummary {
  Time from, to;
  std::uint64_t batches = 0;  // started in [from, to)
  // Per index row (TimelineIndex order): the share of [from, to) its slot was busy, 0–1.
  std::vector<double> busy;
  // A request finishes when its last batch ends (a pipeline's last stage); preempted batches
  // finish nothing. Empty when the timeline keeps no request lists.
  std::optional<std::uint64_t> finished, late;
  std::uint64_t dropped = 0;            // requests dropped in [from, to)
  std::optional<Duration> p50, p99;     // latency (arrival to finish) of those that finished
  std::vector<ModelViolations> models;  // the models that finished or dropped a request in it
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
    Duration lateness;       // past its deadline (≤ 0: on time)
    std::uint32_t span = 0;  // the batch it finished in
    bool late() const { return lateness > Duration(); }
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
