// What a run reports as it goes. The simulator (and the live scheduler) call these hooks; the
// metrics collector folds them into bounded aggregates, and optional recorders keep timeline
// spans or per-request records for views and exports. Long runs keep only aggregates.
#pragma once

#include <algorithm>
#include <vector>

#include "engine/dataplane/request.h"

namespace servescope::engine {

class RunRecorder {
 public:
  virtual ~RunRecorder() = default;
  virtual void on_arrival(const Request&) {}
  virtual void on_drop(const Request&, DropReason, Time /*when*/) {}
  // A batch left its GPU: it ran from `start` to `end` and either completed or was preempted
  // (its work wasted, its requests handed back to the data plane).
  virtual void on_batch(const Batch&, Time /*start*/, Time /*end*/, bool /*completed*/) {}
  virtual void on_complete(const Request&, Time /*start*/, Time /*end*/) {}
  // A data plane handed a batch to the executor (its start may still lie ahead).
  virtual void on_dispatch(const Batch&, Time /*now*/) {}
  // A transfer finished: it held its links from `start` to `end`.
  virtual void on_transfer(const Transfer&, Time /*start*/, Time /*end*/) {}
};

// Forwards every hook to several recorders.
class RecorderFanout final : public RunRecorder {
 public:
  void add(RunRecorder& r) { sinks_.push_back(&r); }
  void on_arrival(const Request& r) override {
    for (auto* s : sinks_)
      s->on_arrival(r);
  }
  void on_drop(const Request& r, DropReason why, Time when) override {
    for (auto* s : sinks_)
      s->on_drop(r, why, when);
  }
  void on_batch(const Batch& b, Time start, Time end, bool completed) override {
    for (auto* s : sinks_)
      s->on_batch(b, start, end, completed);
  }
  void on_complete(const Request& r, Time start, Time end) override {
    for (auto* s : sinks_)
      s->on_complete(r, start, end);
  }
  void on_dispatch(const Batch& b, Time now) override {
    for (auto* s : sinks_)
      s->on_dispatch(b, now);
  }
  void on_transfer(const Transfer& t, Time start, Time end) override {
    for (auto* s : sinks_)
      s->on_transfer(t, start, end);
  }

 private:
  std::vector<RunRecorder*> sinks_;
};

// One executed batch on one GPU: the timeline's unit.
struct TimelineSpan {
  BatchId batch = 0;
  std::uint32_t gpu = 0;
  std::uint32_t model = 0;
  std::uint32_t size = 0;
  Time start, end;
  bool preempted = false;
};

// One transfer between two GPUs' servers: the network lanes of the timeline.
struct TransferSpan {
  TransferId transfer = 0;
  BatchId batch = 0;
  std::uint32_t from_gpu = 0;
  std::uint32_t to_gpu = 0;
  std::uint64_t bytes = 0;
  Time start, end;
};

class TimelineRecorder final : public RunRecorder {
 public:
  void on_batch(const Batch& b, Time start, Time end, bool completed) override {
    spans_.push_back({b.id, b.gpu, b.model, static_cast<std::uint32_t>(b.requests.size()), start, end, !completed});
  }
  void on_transfer(const Transfer& t, Time start, Time end) override {
    transfers_.push_back({t.id, t.batch, t.from_gpu, t.to_gpu, t.bytes, start, end});
  }
  const std::vector<TransferSpan>& transfers() const { return transfers_; }
  // In the order batches left their GPUs.
  const std::vector<TimelineSpan>& spans() const { return spans_; }
  // Sorted by start time, then GPU: the order timelines and exports want.
  std::vector<TimelineSpan> spans_by_start() const {
    auto out = spans_;
    std::ranges::stable_sort(out, [](const TimelineSpan& a, const TimelineSpan& b) {
      return a.start < b.start || (a.start == b.start && a.gpu < b.gpu);
    });
    return out;
  }

 private:
  std::vector<TimelineSpan> spans_;
  std::vector<TransferSpan> transfers_;
};

}  // namespace servescope::engine
