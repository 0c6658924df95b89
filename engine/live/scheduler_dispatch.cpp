// The live scheduler as the data plane's host: the Executor and OutcomeSink it implements with
// remote workers (a batch becomes an order on its worker's socket, its end the worker's report),
// and the bookkeeping of batches and transfers in flight (docs/architecture.md, "The data-plane
// seam").
#include <algorithm>

#include "engine/core/unit_draw.h"
#include "engine/live/byte_codec.h"
#include "engine/live/json_payload.h"
#include "engine/live/live_run.h"
#include "engine/live/live_scheduler.h"
#include "engine/live/messages.h"
#include "engine/live/scheduler_parts.h"
#include "engine/ppipe/pipeline_deployment.h"
#include "engine/systems/system_registry.h"
#include "model/core/error.h"

namespace servescope::engine::live {

void LiveScheduler::execute(Batch batch) {
  const Time t = now();
  const auto planned = static_cast<std::uint32_t>(batch.requests.size());
  drop_ended(batch.requests);
  if (batch.requests.empty()) {
    // Nothing left to run: the plane hears the batch finish when it expected to.
    timers_.complete_at(std::max(t, batch.predicted_end), BatchDone{batch.id, batch.gpu, batch.model, planned, t, t});
    return;
  }
  recording_.events().on_dispatch(batch, t);
  const auto server = roster_.server_of(batch.gpu);
  Peer* worker = worker_of(server);
  if (!worker) {
    // Nobody runs this slot now: its requests end here with the reason, and the data plane hears
    // the batch finish when it expected to, as if the slot had run it (it plans with that time).
    counters_.sent_to_gone_workers += batch.requests.size();
    for (const auto& r : batch.requests)
      dropped(r, DropReason::WorkerLost);
    recording_.events().on_batch(batch, t, t, false);
    timers_.complete_at(
        std::max(t, batch.predicted_end),
        BatchDone{batch.id, batch.gpu, batch.model, static_cast<std::uint32_t>(batch.requests.size()), t, t});
    return;
  }
  RunOrder order;
  order.batch = wire_id(batch.id);
  order.slot = batch.gpu;
  order.model = batch.model;
  order.kernel = batch.kernel;
  if (const auto* d = prepared_.pipeline_deployment) {
    const auto& blocks = d->kernels.at(batch.model).at(batch.kernel);
    order.block_begin = static_cast<std::uint32_t>(blocks.begin);
    order.block_end = static_cast<std::uint32_t>(blocks.end);
  }
  order.requests.reserve(batch.requests.size());
  for (const auto& r : batch.requests)
    order.requests.push_back(r.id);
  order.start_in_ns = std::max<std::int64_t>(0, (batch.start - t).count_ns());
  const auto size = static_cast<int>(batch.requests.size());
  // Drawn, or the median where the table holds the quantile planned with (latency_quantile.h).
  order.run_ns = prepared_.times
                     ->sample(batch.model, batch.kernel, batch.gpu, size,
                              runtime_draws_ ? runtime_draws_->next(batch.gpu, batch.start) : 0.5)
                     .count_ns();
  worker->conn->send(FrameType::Batch, encode_order(order));
  try {
    worker->conn->flush();
  } catch (const LiveError&) {
    // Noticed by the poll loop, which loses the worker and this batch with it.
  }
  counters_.dispatch_overhead.add(Duration::nanoseconds(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - event_began_).count()));
  // A report later than the batch's own run time plus 50 ms (or half again as long) is overdue.
  const auto allowance = Duration::nanoseconds(order.run_ns + std::max<std::int64_t>(50'000'000, order.run_ns / 2));
  batches_.emplace(order.batch,
                   InFlightBatch{std::move(batch), server, t, t + Duration::nanoseconds(order.start_in_ns), allowance});
}

bool LiveScheduler::preempt(BatchId, std::uint32_t) {
  return false;  // refused at construction for the systems that preempt
}

void LiveScheduler::transfer(Transfer t) {
  const Time at = now();
  const auto sender = roster_.server_of(t.from_gpu);
  const auto receiver = roster_.server_of(t.to_gpu);
  auto done_at = [&](Time when) {
    return TransferDone{t.id, t.batch, t.from_gpu, t.to_gpu, std::max(at, t.not_before), when};
  };
  const auto planned = t.requests.size();
  if (drop_ended(t.requests) > 0) {
    if (t.requests.empty()) {  // nothing left to move
      timers_.deliver_at(at, done_at(at));
      return;
    }
    t.bytes = t.bytes / planned * t.requests.size();
  }
  if (sender == receiver) {
    // Between vGPUs of one server the feature map stays in host memory (PPipe §4.5's local hand-off).
    const Time when = std::max(at, t.not_before);
    recording_.events().on_transfer(t, when, when);
    timers_.deliver_at(when, done_at(when));
    return;
  }
  Peer* from = worker_of(sender);
  Peer* to = worker_of(receiver);
  if (!from || !to || to->feature_port == 0) {
    for (const auto& r : t.requests)
      dropped(r, DropReason::WorkerLost);
    timers_.deliver_at(at, done_at(at));
    return;
  }
  SendOrder order;
  order.transfer = wire_id(t.id);
  order.from_slot = t.from_gpu;
  order.to_slot = t.to_gpu;
  order.bytes = t.bytes;
  order.start_in_ns = std::max<std::int64_t>(0, (t.not_before - at).count_ns());
  order.peer_host = to->feature_host;
  order.peer_port = to->feature_port;
  if (!t.requests.empty()) order.model = t.requests.front().model;
  order.boundary = stage_end(order.model, t.from_gpu);
  order.requests.reserve(t.requests.size());
  for (const auto& r : t.requests)
    order.requests.push_back(r.id);
  from->conn->send(FrameType::Batch, encode_order(order));
  // A feature map not delivered within a second of its start is given up (the receiver is gone
  // or unreachable, and no report may ever come).
  const auto overdue = at + Duration::nanoseconds(order.start_in_ns) + Duration::seconds(1);
  transfers_.emplace(order.transfer, InFlightTransfer{std::move(t), sender, receiver, at, overdue});
}

// ---- Outcomes ---------------------------------------------------------------------------------

void LiveScheduler::record_outcome(const Request& r, OutcomeStatus status, DropReason reason, Time end) {
  const auto it = ledger_.find(r.id);
  if (it == ledger_.end()) return;
  const Owner owner = it->second;
  ledger_.erase(it);
  switch (status) {
    case OutcomeStatus::OnTime:
      ++counters_.on_time[r.model];
      break;
    case OutcomeStatus::Late:
      ++counters_.late[r.model];
      break;
    case OutcomeStatus::Dropped:
      ++counters_.dropped[r.model][static_cast<std::size_t>(reason)];
      break;
  }
  if (auto* client = peers_.find(owner.peer))
    client->outcomes.push_back(ClientOutcome{owner.client_id, status, reason, (end - r.arrival).count_ns()});
}

void LiveScheduler::dropped(const Request& request, DropReason reason) {
  if (request.internal || !ledger_.contains(request.id)) return;  // ended already (its worker was lost)
  // The plane drops what it cannot place: with no capacity for the model (a PPipe pipeline short
  // of a whole pool), or with no usable slot at all, while a worker of the plan is gone, the
  // capacity left with that worker, and that is what the load generator is told. A plane that
  // still has slots and misses a deadline says so as it is.
  if ((reason == DropReason::NoCapacity || (reason == DropReason::DeadlineUnreachable && !roster_.any_slot_usable())) &&
      roster_.any_missing())
    reason = DropReason::WorkerLost;
  const Time t = now();
  recording_.events().on_drop(request, reason, t);
  record_outcome(request, OutcomeStatus::Dropped, reason, t);
}

void LiveScheduler::completed(const Request& request, Time start, Time end) {
  if (request.internal || !ledger_.contains(request.id)) return;
  recording_.events().on_complete(request, start, end);
  record_outcome(request, end <= request.deadline ? OutcomeStatus::OnTime : OutcomeStatus::Late,
                 DropReason::DeadlineUnreachable, end);
}

void LiveScheduler::finish_batch(std::uint64_t id, std::int64_t run_ns) {
  const auto it = batches_.find(id);
  if (it == batches_.end()) return;  // lost with its worker, or reported twice
  InFlightBatch done = std::move(it->second);
  batches_.erase(it);
  const Time end = now();
  if (done.batch.gpu >= slot_reported_.size()) slot_reported_.resize(done.batch.gpu + 1, kMinusInfinity);
  // Ordered to start at once on a slot idle since its last report, the batch waited only for its
  // order and report to travel: the hop the simulator draws (live_hops.h). One ordered ahead, or
  // queued behind another, hides some of it.
  if (done.start == done.dispatched && slot_reported_[done.batch.gpu] <= done.start)
    counters_.batch_hop.add(std::max(Duration(), end - Duration::nanoseconds(run_ns) - done.start));
  slot_reported_[done.batch.gpu] = end;
  const Time start = std::max(done.dispatched, end - Duration::nanoseconds(run_ns));
  const auto& b = done.batch;
  ++counters_.batches[b.gpu];
  counters_.busy_ns[b.gpu] += (end - start).count_ns();
  recording_.events().on_batch(b, start, end, true);
  if (b.final_stage)
    for (const auto& r : b.requests)
      completed(r, start, end);
  prepared_.plane->on_batch_done(
      BatchDone{b.id, b.gpu, b.model, static_cast<std::uint32_t>(b.requests.size()), start, end});
}

void LiveScheduler::finish_transfer(std::uint64_t id) {
  const auto it = transfers_.find(id);
  if (it == transfers_.end()) return;
  InFlightTransfer done = std::move(it->second);
  transfers_.erase(it);
  const Time end = now();
  const auto& t = done.transfer;
  const Time start = std::min(end, std::max(done.issued, t.not_before));
  ++counters_.transfers;
  counters_.transfer_bytes += t.bytes;
  const auto link = links_.transfer_time(links_.server_of(t.from_gpu), links_.server_of(t.to_gpu), t.bytes);
  counters_.transfer_overhead.add(std::max(Duration(), end - start - link));
  recording_.events().on_transfer(t, start, end);
  prepared_.plane->on_transfer_done(TransferDone{t.id, t.batch, t.from_gpu, t.to_gpu, start, end});
}

void LiveScheduler::fail_transfer(std::uint64_t id, const std::string& why) {
  const auto it = transfers_.find(id);
  if (it == transfers_.end()) return;
  InFlightTransfer lost = std::move(it->second);
  transfers_.erase(it);
  log("transfer " + std::to_string(lost.transfer.id) + " given up (" + std::to_string(lost.transfer.requests.size()) +
      " requests): " + why);
  for (const auto& r : lost.transfer.requests)
    dropped(r, DropReason::WorkerLost);
  const auto& x = lost.transfer;
  prepared_.plane->on_transfer_done(TransferDone{x.id, x.batch, x.from_gpu, x.to_gpu, lost.issued, now()});
}

void LiveScheduler::lose_batch(const InFlightBatch& lost, DropReason reason) {
  const Time t = now();
  const auto& b = lost.batch;
  recording_.events().on_batch(b, lost.dispatched, t, false);
  for (const auto& r : b.requests)
    dropped(r, reason);
  prepared_.plane->on_batch_done(
      BatchDone{b.id, b.gpu, b.model, static_cast<std::uint32_t>(b.requests.size()), lost.dispatched, t});
}

// The block a pipeline stage on `slot` ends at: where the feature maps it sends enter the next.
std::uint32_t LiveScheduler::stage_end(std::uint32_t model, std::uint32_t slot) const {
  const auto* d = prepared_.pipeline_deployment;
  if (!d) return 0;
  for (const auto p : d->model_pipelines.at(model))
    for (const auto& stage : d->pipelines[p].stages)
      if (std::ranges::find(stage.pool, slot) != stage.pool.end()) return static_cast<std::uint32_t>(stage.blocks.end);
  return 0;
}

}  // namespace servescope::engine::live
