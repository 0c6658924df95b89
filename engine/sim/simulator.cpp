#include "engine/sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/core/unit_draw.h"
#include "model/core/error.h"

namespace servescope::engine {

Simulator::Simulator(std::size_t gpus, ExecutionTimes times, ArrivalSource& arrivals, DataPlane& plane,
                     RunRecorder& recorder)
    : times_(std::move(times)),
      arrivals_(arrivals),
      plane_(plane),
      recorder_(recorder),
      context_{*this, *this, *this},
      events_(2 + gpus),
      network_slot_(static_cast<std::uint32_t>(1 + gpus)),
      first_timer_slot_(static_cast<std::uint32_t>(2 + gpus)),
      gpu_queue_(gpus),
      running_(gpus) {}

TimerId Simulator::create_timer(std::uint64_t token) {
  timer_tokens_.push_back(token);
  events_.add_slot();
  return static_cast<TimerId>(timer_tokens_.size() - 1);
}

void Simulator::arm(TimerId timer, Time at) {
  events_.set(first_timer_slot_ + timer, Key{std::max(at, now_), EventClass::Timer, ++seq_});
}

void Simulator::disarm(TimerId timer) {
  events_.erase(first_timer_slot_ + timer);
}

void Simulator::execute(Batch batch) {
  const auto gpu = batch.gpu;
  recorder_.on_dispatch(batch, now_);
  // A batch cannot start before its order reaches the worker, and is heard ending its report's
  // way after: one hop from now, which an order sent ahead of its start has already covered.
  if (hops_.batch) batch.start = std::max(batch.start, now_ + hops_.batch->quantile(unit_draw(hop_rng_)));
  gpu_queue_[gpu].push_back(std::move(batch));
  if (!running_[gpu]) start_next(gpu);
}

bool Simulator::preempt(BatchId batch, std::uint32_t gpu) {
  if (running_[gpu] && running_[gpu]->batch.id == batch) {
    const auto shared = contention_ && running_[gpu]->begun ? shared_device_[gpu] : -1;
    if (shared >= 0) advance_device(static_cast<std::size_t>(shared));
    Running stopped = std::move(*running_[gpu]);
    running_[gpu].reset();
    events_.erase(first_gpu_slot_ + gpu);
    if (shared >= 0) retime_device(static_cast<std::size_t>(shared));
    recorder_.on_batch(stopped.batch, stopped.start, std::max(now_, stopped.start), false);
    start_next(gpu);
    return true;
  }
  auto& queue = gpu_queue_[gpu];
  const auto it = std::ranges::find(queue, batch, &Batch::id);
  if (it == queue.end()) return false;
  queue.erase(it);
  return true;
}

void Simulator::set_runtime_jitter(double fraction, std::uint64_t seed) {
  jitter_ = std::clamp(fraction, 0.0, 0.99);
  jitter_rng_.seed(seed);
}

void Simulator::set_hops(LiveHops hops) {
  hops_ = std::move(hops);
  hop_rng_.seed(hops_.seed ^ 0x2545f4914f6cdd1dULL);  // not the arrivals' or the batches' stream
}

void Simulator::set_runtime_sampling(std::uint64_t seed, std::vector<Duration> spells) {
  if (times_.has_spread())
    sampling_.emplace(seed, std::move(spells));
  else
    sampling_.reset();
}

void Simulator::set_contention(const std::vector<std::uint32_t>& device, ContentionSlowdown slowdown) {
  shared_device_.assign(running_.size(), -1);
  device_gpus_.clear();
  std::map<std::uint32_t, std::vector<std::uint32_t>> by_device;
  for (std::uint32_t g = 0; g < running_.size() && g < device.size(); ++g)
    by_device[device[g]].push_back(g);
  for (auto& [d, gpus] : by_device) {
    if (gpus.size() < 2) continue;
    for (const auto g : gpus)
      shared_device_[g] = static_cast<std::int32_t>(device_gpus_.size());
    device_gpus_.push_back(std::move(gpus));
  }
  contention_ = device_gpus_.empty() ? nullptr : std::move(slowdown);
}

// Each batch running on the device, brought up to now at the pace it has run since it was last
// re-timed: what is left of its time alone.
void Simulator::advance_device(std::size_t device) {
  for (const auto g : device_gpus_[device]) {
    auto& r = running_[g];
    if (!r || !r->begun) continue;
    const auto elapsed = static_cast<double>((now_ - r->last).count_ns());
    r->solo_left_ns = std::max(0.0, r->solo_left_ns - elapsed / r->pace);
    r->last = now_;
  }
}

// After a batch began or ended on the device: each running batch's pace for the slots busy now,
// and its end at that pace.
void Simulator::retime_device(std::size_t device) {
  const auto& gpus = device_gpus_[device];
  const int busy =
      static_cast<int>(std::ranges::count_if(gpus, [&](auto g) { return running_[g] && running_[g]->begun; }));
  for (const auto g : gpus) {
    auto& r = running_[g];
    if (!r || !r->begun) continue;
    r->pace = std::max(1.0, contention_(g, static_cast<int>(r->batch.requests.size()), busy));
    const Time end = now_ + Duration::nanoseconds(std::llround(r->solo_left_ns * r->pace));
    if (end == r->end) continue;
    r->end = end;
    events_.set(first_gpu_slot_ + g, Key{end, EventClass::Completion, ++seq_});
  }
}

void Simulator::begin_contended(std::uint32_t gpu) {
  const auto device = static_cast<std::size_t>(shared_device_[gpu]);
  advance_device(device);
  auto& r = *running_[gpu];
  r.begun = true;
  r.last = now_;
  r.end = kNever;  // so that re-timing sets its completion
  retime_device(device);
}

void Simulator::start_next(std::uint32_t gpu) {
  auto& queue = gpu_queue_[gpu];
  // A data plane that dispatches from on_batch_done has already started the GPU's next batch.
  if (queue.empty() || running_[gpu]) return;
  Running r;
  r.batch = std::move(queue.front());
  queue.pop_front();
  r.start = std::max(now_, r.batch.start);
  const auto size = static_cast<int>(r.batch.requests.size());
  // Without sampling, the median: the table may hold a higher quantile to plan with
  // (model/scenario/latency_quantile.h), and a profile without distributions answers its table.
  auto run = times_.sample(r.batch.model, r.batch.kernel, gpu, size, sampling_ ? sampling_->next(gpu, r.start) : 0.5);
  if (jitter_ > 0) {
    const double u = unit_draw(jitter_rng_);
    run = Duration::nanoseconds(std::llround(static_cast<double>(run.count_ns()) * (1 - jitter_ + 2 * jitter_ * u)));
  }
  if (slowdown_)
    run = Duration::nanoseconds(
        std::llround(static_cast<double>(run.count_ns()) * std::max(1.0, slowdown_(gpu, r.batch))));
  ++stats_.batches;
  if (contention_ && shared_device_[gpu] >= 0) {
    // Its end depends on what runs beside it: known once it begins, and moved as that changes. A
    // batch dispatched to start later begins by an event of its own at its start.
    r.solo_left_ns = static_cast<double>(run.count_ns());
    r.begun = false;
    r.end = r.start;
    const bool later = r.start > now_;
    running_[gpu] = std::move(r);
    if (later)
      events_.set(first_gpu_slot_ + gpu, Key{running_[gpu]->start, EventClass::Completion, ++seq_});
    else
      begin_contended(gpu);
    return;
  }
  r.end = r.start + run;
  events_.set(first_gpu_slot_ + gpu, Key{r.end, EventClass::Completion, ++seq_});
  running_[gpu] = std::move(r);
}

void Simulator::transfer(Transfer t) {
  const auto link = network_.reserve(t.from_gpu, t.to_gpu, t.bytes, std::max(now_, t.not_before));
  Time end = link.end;
  if (hops_.transfer && link.end > link.start) end += hops_.transfer->quantile(unit_draw(hop_rng_));
  in_flight_.push(InFlight{end, ++seq_, link.start, std::move(t)});
  events_.set(network_slot_, Key{in_flight_.top().end, EventClass::Completion, in_flight_.top().seq});
}

void Simulator::finish_transfer() {
  // top() is const; the transfer is copied out once, as it leaves the queue.
  InFlight done = in_flight_.top();
  in_flight_.pop();
  if (!in_flight_.empty())
    events_.set(network_slot_, Key{in_flight_.top().end, EventClass::Completion, in_flight_.top().seq});
  recorder_.on_transfer(done.transfer, done.start, done.end);
  plane_.on_transfer_done(TransferDone{done.transfer.id, done.transfer.batch, done.transfer.from_gpu,
                                       done.transfer.to_gpu, done.start, done.end});
}

void Simulator::dropped(const Request& request, DropReason reason) {
  if (request.internal) return;  // its parent's outcome is what counts
  --outstanding_;
  recorder_.on_drop(request, reason, now_);
}

void Simulator::completed(const Request& request, Time start, Time end) {
  --outstanding_;
  recorder_.on_complete(request, start, end);
}

void Simulator::fetch_next_arrival() {
  next_arrival_ = arrivals_.next();
  if (next_arrival_)
    events_.set(arrival_slot_, Key{std::max(next_arrival_->at, now_), EventClass::Arrival, ++seq_});
  else
    events_.erase(arrival_slot_);
}

void Simulator::set_progress(Progress progress, std::uint64_t every_events) {
  progress_ = std::move(progress);
  progress_every_ = std::max<std::uint64_t>(every_events, 1);
}

void Simulator::step() {
  const auto slot = events_.top();
  now_ = events_.top_key().t;
  events_.erase(slot);
  ++stats_.events;
  if (progress_ && stats_.events % progress_every_ == 0) progress_(now_);
  if (slot == arrival_slot_) {
    const Arrival a = *next_arrival_;
    const Request r{next_request_++, a.model, a.target, a.at, a.at + a.slo};
    ++stats_.arrivals;
    ++outstanding_;
    recorder_.on_arrival(r);
    plane_.on_request(r);
    fetch_next_arrival();
  } else if (slot == network_slot_) {
    finish_transfer();
  } else if (slot < first_timer_slot_) {
    const auto gpu = slot - first_gpu_slot_;
    if (!running_[gpu]->begun) {
      begin_contended(gpu);
      stats_.end = now_;
      return;
    }
    const auto shared = contention_ ? shared_device_[gpu] : -1;
    if (shared >= 0) advance_device(static_cast<std::size_t>(shared));
    Running done = std::move(*running_[gpu]);
    running_[gpu].reset();
    if (shared >= 0) retime_device(static_cast<std::size_t>(shared));
    recorder_.on_batch(done.batch, done.start, done.end, true);
    if (done.batch.final_stage)
      for (const auto& r : done.batch.requests)
        if (!r.internal) {
          --outstanding_;
          recorder_.on_complete(r, done.start, done.end);
        }
    plane_.on_batch_done(BatchDone{done.batch.id, gpu, done.batch.model,
                                   static_cast<std::uint32_t>(done.batch.requests.size()), done.start, done.end});
    start_next(gpu);
  } else {
    plane_.on_timer(timer_tokens_[slot - first_timer_slot_]);
  }
  stats_.end = now_;
}

void Simulator::run_until(Time t) {
  if (!started_) {
    started_ = true;
    plane_.start(context_);
    fetch_next_arrival();
  }
  while (!events_.empty() && events_.top_key().t <= t && (next_arrival_ || outstanding_ > 0))
    step();
  if (now_ < t && t != kNever) now_ = t;
}

void Simulator::run(Time limit) {
  run_until(limit);
}

}  // namespace servescope::engine
