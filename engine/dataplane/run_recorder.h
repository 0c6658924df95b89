// What a run reports as it goes. The simulator (and the live scheduler) call these hooks; the
// metrics collector folds them into bounded aggregates, and optional recorders keep timeline
// spans or per-request records for views and exports. Long runs keep only aggregates.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "engine/dataplane/request.h"
#include "engine/dataplane/run_notice.h"

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
  // The serving system says what happened to it (a worker lost, a plan switch): run_notice.h.
  virtual void on_notice(const RunNotice&) {}
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
  void on_notice(const RunNotice& n) override {
    for (auto* s : sinks_)
      s->on_notice(n);
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
  std::uint32_t late = 0;  // requests of the batch whose deadline had passed when it ended
  // The batch's first request: the stages of one pipeline batch carry the same requests, so this
  // links a batch across the partitions of a pooled pipeline (PPipe Fig. 12).
  RequestId first_request = 0;
  Time window_open, window_close;  // Batch::window_open/close: when it could have started
  std::uint64_t requests_at = 0;   // where its `size` requests start in the run's request list
};

// A request dropped, for the timeline's drop marks and "next violation".
struct DropMark {
  Time time;
  std::uint32_t model = 0;
  DropReason reason = DropReason::DeadlineUnreachable;
  std::optional<RequestId> request;  // which one (timelines written before it was kept: unknown)
  // When it arrived and its deadline, so a story of it starts at its arrival and shows its wait
  // (timelines written before they were kept: unknown).
  std::optional<Time> arrival;
  Time deadline;
};

// One request of an executed batch, for listing a batch's requests.
struct SpanRequest {
  RequestId id = 0;
  Time arrival, deadline;
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

// Requests of a model waiting for a batch, sampled when the count changes (at most one sample
// per model per kQueueSampleStep, the last one in it).
struct QueueSample {
  Time time;
  std::uint32_t model = 0;
  std::uint32_t depth = 0;
};

// What a timeline gained over a stretch of a run, as the recorder saw it: spans in the order
// batches left their GPUs (not by start), each span's requests_at indexing this chunk's own
// `requests`. A live viewer takes one chunk per refresh and merges it in (timeline_growth.h).
struct TimelineChunk {
  std::vector<TimelineSpan> spans;
  std::vector<SpanRequest> requests;
  std::vector<TransferSpan> transfers;
  std::vector<QueueSample> queue;  // in the order the queues changed
  std::vector<DropMark> drops;
  std::vector<RunNotice> notices;  // in time order
  bool empty() const { return spans.empty() && transfers.empty() && queue.empty() && drops.empty() && notices.empty(); }
};

class TimelineRecorder final : public RunRecorder {
 public:
  static constexpr Duration kQueueSampleStep = Duration::milliseconds(1);

  // A request waits from its arrival until it first leaves the queue: dispatched in a batch,
  // dropped, or (an application request, whose modules run as internal requests) completed.
  // Each leaves once, so stage-2 drops and re-dispatches after preemption do not count again.
  void on_arrival(const Request& r) override {
    if (r.internal) return;
    waiting_.insert(r.id);
    change_queue(r.model, r.arrival, +1);
  }
  void on_drop(const Request& r, DropReason why, Time when) override {
    if (r.internal) return;
    drops_.push_back({when, r.model, why, r.id, r.arrival, r.deadline});
    leave_queue(r, when);
  }
  void on_complete(const Request& r, Time, Time end) override {
    if (!r.internal) leave_queue(r, end);
  }
  void on_dispatch(const Batch& b, Time now) override {
    for (const auto& r : b.requests)
      if (!r.internal) leave_queue(r, now);
  }
  void on_batch(const Batch& b, Time start, Time end, bool completed) override {
    std::uint32_t late = 0;
    for (const auto& r : b.requests)
      late += r.deadline < end ? 1u : 0u;
    spans_.push_back({b.id, b.gpu, b.model, static_cast<std::uint32_t>(b.requests.size()), start, end, !completed, late,
                      b.requests.empty() ? RequestId{0} : b.requests.front().id, b.window_open, b.window_close,
                      requests_.size()});
    for (const auto& r : b.requests)
      requests_.push_back({r.id, r.arrival, r.deadline});
  }
  void on_transfer(const Transfer& t, Time start, Time end) override {
    transfers_.push_back({t.id, t.batch, t.from_gpu, t.to_gpu, t.bytes, start, end});
  }
  void on_notice(const RunNotice& n) override { notices_.push_back(n); }
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
  // In time order.
  const std::vector<QueueSample>& queue_samples() const { return queue_; }
  // In time order.
  const std::vector<DropMark>& drops() const { return drops_; }
  // In time order.
  const std::vector<RunNotice>& notices() const { return notices_; }
  // Every batch's requests; TimelineSpan::requests_at indexes it.
  const std::vector<SpanRequest>& requests() const { return requests_; }

  // What was recorded since the last take, moved out; the queues' state (who waits) stays, so
  // depths carry on across takes. A live run's viewer takes it, so the recorder holds only what
  // the viewer has not seen yet.
  TimelineChunk take() {
    TimelineChunk chunk{std::exchange(spans_, {}), std::exchange(requests_, {}), std::exchange(transfers_, {}),
                        std::exchange(queue_, {}), std::exchange(drops_, {}),    std::exchange(notices_, {})};
    last_sample_.assign(last_sample_.size(), SIZE_MAX);
    return chunk;
  }
  // Lets go of what ended before `t` (a viewer that stopped taking must not grow the recorder
  // without bound): spans and transfers that ended, queue samples and drops, and the requests
  // of the spans let go.
  void forget_before(Time t);

 private:
  void leave_queue(const Request& r, Time when) {
    if (waiting_.erase(r.id) > 0) change_queue(r.model, when, -1);
  }
  void change_queue(std::uint32_t model, Time when, std::int64_t by) {
    if (model >= depth_.size()) depth_.resize(model + 1, 0);
    depth_[model] += by;
    const auto depth = static_cast<std::uint32_t>(depth_[model]);
    // Coalesce: a sample less than a step after the model's last one replaces it.
    if (model >= last_sample_.size()) last_sample_.resize(model + 1, SIZE_MAX);
    auto& last = last_sample_[model];
    if (last != SIZE_MAX && when - queue_[last].time < kQueueSampleStep) {
      queue_[last].depth = depth;
      return;
    }
    last = queue_.size();
    queue_.push_back({when, model, depth});
  }

  std::vector<TimelineSpan> spans_;
  std::vector<TransferSpan> transfers_;
  std::vector<QueueSample> queue_;
  std::vector<SpanRequest> requests_;
  std::vector<DropMark> drops_;
  std::vector<RunNotice> notices_;
  std::unordered_set<RequestId> waiting_;  // arrived, not yet dispatched, dropped or completed
  std::vector<std::int64_t> depth_;
  std::vector<std::size_t> last_sample_;
};

}  // namespace servescope::engine
