#include "engine/ppipe/reservation_scheduler.h"

#include <algorithm>
#include <cmath>

namespace servescope::engine {

ReservationScheduler::ReservationScheduler(const PipelineDeployment& deployment, std::vector<Duration> model_slo,
                                           ReservationSchedulerOptions options)
    : d_(deployment),
      slo_(std::move(model_slo)),
      options_(options),
      table_(PipelineProber::resource_count(deployment), options.mode),
      prober_(deployment, table_, options.probe),
      queue_(deployment.models.size()),
      seen_head_(deployment.models.size(), 0),
      last_forget_(kMinusInfinity) {
  slo_.resize(d_.models.size(), Duration::seconds(1));
}

void ReservationScheduler::start(DataPlaneContext& context) {
  ctx_ = &context;
  for (std::uint32_t m = 0; m < d_.models.size(); ++m)
    model_timer_.push_back(context.clock.create_timer(m));
  release_timer_ = context.clock.create_timer(d_.models.size());
}

ReservationSchedulerStats ReservationScheduler::stats() const {
  auto s = stats_;
  s.probes = prober_.probes();
  return s;
}

void ReservationScheduler::on_request(const Request& request) {
  insert_by_deadline(queue_[request.model], request);
  schedule(request.model);
}

void ReservationScheduler::on_timer(std::uint64_t token) {
  if (token < d_.models.size())
    schedule(static_cast<std::uint32_t>(token));
  else
    release_due();
}

Duration ReservationScheduler::idle_work(std::uint32_t pipeline, int batch) const {
  const auto& p = d_.pipelines[pipeline];
  Duration work;
  for (std::size_t s = 0; s < p.stages.size(); ++s) {
    work += p.stages[s].latency.at(batch);
    if (s > 0)
      work += prober_.transfer_time(p.stages[s - 1].pool.front(), p.stages[s].pool.front(),
                                    p.stages[s].in_bytes_per_sample * batch);
  }
  return work;
}

void ReservationScheduler::drop_head(std::uint32_t model, DropReason why) {
  ++stats_.drops;
  ctx_->outcomes.dropped(queue_[model].front(), why);
  queue_[model].pop_front();
}

void ReservationScheduler::schedule(std::uint32_t model) {
  const Time now = ctx_->clock.now();
  if (options_.mode == ReservationMode::GapFilling && now - last_forget_ > Duration::milliseconds(1)) {
    // A batch still running past its reserved end must keep its reservation until it reports,
    // or its overrun, and every later one's, is lost to the table (feedback could not find it).
    // One that never reports (a lost worker) is let go after kKeepUnreported.
    Time keep_from = now;
    if (options_.feedback && !in_flight_starts_.empty())
      keep_from = std::max(std::min(now, *in_flight_starts_.begin()), now - kKeepUnreported);
    table_.forget_before(keep_from);
    last_forget_ = now;
  }
  auto& q = queue_[model];
  const auto& pipelines = d_.model_pipelines[model];
  while (!q.empty()) {
    const Request head = q.front();
    // When its result must leave the last GPU: the deadline less the return path (as Symphony's G6).
    const Time due = head.deadline - options_.response_allowance;
    // Step 1: the pipeline that waits least at its planned batch (ties: lower index).
    Offer best;
    Duration best_score = Duration::max();
    for (const auto p : pipelines) {
      const auto o = prober_.probe(p, d_.pipelines[p].planned_batch, now);
      Duration score = o.wait;
      if (options_.penalise_late_single && o.batch == 1 && o.finish > due && o.finish != kNever) score += slo_[model];
      if (score < best_score) {
        best = o;
        best_score = score;
      }
    }
    // Step 2: the largest batch that still meets the head's deadline.
    const int planned = best.batch;
    int lowest = 1;
    const bool first_look = options_.first_look_min_fraction > 0 && seen_head_[model] != head.id;
    const auto floor_at = [planned](double fraction) {
      return std::clamp(static_cast<int>(std::lround(fraction * planned)), 1, planned);
    };
    // No pipeline can take the batch at all (every vGPU of a stage gone): `best` is no offer.
    const bool offered = best.finish != kNever && planned >= 1;
    if (first_look && offered) lowest = floor_at(options_.first_look_min_fraction);
    // The pipeline is booked more than a whole planned batch ahead: a small batch would only hold
    // its vGPUs longer per request than the planned one (see behind_min_fraction). A wait for a
    // busy link or the tail of one batch is not being behind.
    const bool behind = offered && options_.behind_min_fraction > 0 && best.wait > idle_work(best.pipeline, planned);
    const int behind_floor = behind ? floor_at(options_.behind_min_fraction) : 1;
    lowest = std::max(lowest, behind_floor);
    std::optional<Offer> chosen;
    for (int b = planned; b >= lowest; --b) {
      const auto o = b == planned ? best : prober_.probe(best.pipeline, b, now);
      if (o.finish <= due) {
        chosen = o;
        break;
      }
    }
    if (!chosen) {
      // Every pipeline of the model lost a whole pool (its workers are gone): no capacity, not
      // a deadline problem.
      drop_head(model, best.finish == kNever ? DropReason::NoCapacity : DropReason::DeadlineUnreachable);
      continue;
    }
    seen_head_[model] = head.id;
    const int queued = static_cast<int>(q.size());
    if (queued < chosen->batch) {
      // Too few requests for the batch: wait while there is slack, else send what is here.
      Time wake;
      std::optional<Offer> now_offer;
      if (options_.wake == WakeRule::LatestFeasible) {
        now_offer = prober_.probe(best.pipeline, queued, now);
        if (now_offer->finish > due) {  // a profile that is not monotone in batch
          drop_head(model);
          continue;
        }
        wake = now + (due - now_offer->finish);
      } else {
        wake = due - idle_work(best.pipeline, queued + 1) + Duration::nanoseconds(1);
      }
      if (wake > now) {
        ctx_->clock.arm(model_timer_[model], wake);
        return;
      }
      chosen = now_offer ? *now_offer : prober_.probe(best.pipeline, queued, now);
      if (chosen->finish > due || queued < behind_floor) {
        drop_head(model);
        continue;
      }
    }
    dispatch(model, *chosen);
  }
  ctx_->clock.disarm(model_timer_[model]);
}

void ReservationScheduler::dispatch(std::uint32_t model, Offer offer) {
  prober_.reserve(offer);
  ++stats_.dispatches;
  auto& q = queue_[model];
  const auto id = next_flight_++;
  Flight f{offer, {}};
  f.requests.assign(q.begin(), q.begin() + offer.batch);
  q.erase(q.begin(), q.begin() + offer.batch);
  in_flight_starts_.insert(f.offer.stage[0].start);
  flights_.emplace(id, std::move(f));
  ready(id, 0, false);
}

// Input for `stage` (or the link into it) is in place: hand it over at its reserved start.
void ReservationScheduler::ready(std::uint64_t flight, int stage, bool transfer) {
  const auto& st = flights_.at(flight).offer.stage[static_cast<std::size_t>(stage)];
  const Time due = transfer ? st.link_start : st.start;
  const Time now = ctx_->clock.now();
  if (due <= now) {
    release(flight, stage, transfer);
    return;
  }
  releases_.push(Release{due, ++seq_, flight, static_cast<std::uint8_t>(stage), transfer});
  ctx_->clock.arm(release_timer_, releases_.top().due);
}

void ReservationScheduler::release_due() {
  const Time now = ctx_->clock.now();
  while (!releases_.empty() && releases_.top().due <= now) {
    const auto r = releases_.top();
    releases_.pop();
    if (flights_.contains(r.flight)) release(r.flight, r.stage, r.transfer);  // else ended with a vGPU
  }
  if (!releases_.empty()) ctx_->clock.arm(release_timer_, releases_.top().due);
}

void ReservationScheduler::release(std::uint64_t flight, int stage, bool transfer) {
  auto& f = flights_.at(flight);
  const auto& st = f.offer.stage[static_cast<std::size_t>(stage)];
  const auto& pipeline = d_.pipelines[f.offer.pipeline];
  const auto& dstage = pipeline.stages[static_cast<std::size_t>(stage)];
  const Time now = ctx_->clock.now();
  if (transfer) {
    const auto from = f.offer.stage[static_cast<std::size_t>(stage - 1)].gpu;
    ctx_->executor.transfer(Transfer{stage_batch_id(flight, stage), from, st.gpu,
                                     static_cast<std::uint64_t>(dstage.in_bytes_per_sample * f.offer.batch), now,
                                     stage_batch_id(flight, stage - 1), f.requests});
    return;
  }
  f.next_stage = stage + 1;
  Batch b;
  b.id = stage_batch_id(flight, stage);
  b.model = pipeline.model;
  b.gpu = st.gpu;
  b.start = now;
  b.predicted_end = now + st.run;
  b.stage = static_cast<std::uint32_t>(stage);
  b.final_stage = stage + 1 == f.offer.stages;
  b.kernel = dstage.kernel;
  b.requests = f.requests;
  ctx_->executor.execute(std::move(b));
}

void ReservationScheduler::on_gpu_lost(std::uint32_t gpu) {
  std::vector<std::uint64_t> ended;  // in flight order, so that drops come in a repeatable order
  for (const auto& [id, f] : flights_)
    for (int s = f.next_stage; s < f.offer.stages; ++s)
      if (f.offer.stage[static_cast<std::size_t>(s)].gpu == gpu) {
        ended.push_back(id);
        break;
      }
  std::ranges::sort(ended);
  for (const auto id : ended) {
    const auto it = flights_.find(id);
    for (const auto& r : it->second.requests)
      ctx_->outcomes.dropped(r, DropReason::WorkerLost);
    in_flight_starts_.erase(in_flight_starts_.find(it->second.offer.stage[0].start));
    flights_.erase(it);
  }
}

void ReservationScheduler::on_batch_done(const BatchDone& done) {
  const auto flight = flight_of(done.id);
  const int stage = stage_of(done.id);
  auto it = flights_.find(flight);
  if (it == flights_.end()) return;
  const auto& offer = it->second.offer;
  const auto& st = offer.stage[static_cast<std::size_t>(stage)];
  if (options_.feedback) {
    table_.correct(st.gpu, st.reserved_run, st.start, st.run, done.start, done.end);
    if (options_.learn_pace) prober_.pace().observe(st.gpu, offer.batch, st.profiled, done.end - done.start);
  }
  if (stage + 1 == offer.stages) {
    in_flight_starts_.erase(in_flight_starts_.find(offer.stage[0].start));
    flights_.erase(it);
    return;
  }
  const bool via_link = offer.stage[static_cast<std::size_t>(stage + 1)].link > Duration();
  ready(flight, stage + 1, via_link);
  // Releasing may have freed capacity the queues were waiting for; they re-plan on their own
  // timers and arrivals, as in the paper.
}

void ReservationScheduler::on_transfer_done(const TransferDone& done) {
  const auto flight = flight_of(done.id);
  const int stage = stage_of(done.id);
  const auto it = flights_.find(flight);
  if (it == flights_.end()) return;
  const auto& offer = it->second.offer;
  const auto& st = offer.stage[static_cast<std::size_t>(stage)];
  const auto from = offer.stage[static_cast<std::size_t>(stage - 1)].gpu;
  if (options_.feedback) {
    table_.correct(prober_.uplink_of(from), st.reserved_uplink, st.link_start, st.link, done.start, done.end);
    table_.correct(prober_.downlink_of(st.gpu), st.reserved_downlink, st.link_start, st.link, done.start, done.end);
  }
  ready(flight, stage, false);
}

}  // namespace servescope::engine
