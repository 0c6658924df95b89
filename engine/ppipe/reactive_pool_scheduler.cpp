#include "engine/ppipe/reactive_pool_scheduler.h"

#include <algorithm>
#include <cmath>

namespace servescope::engine {

ReactivePoolScheduler::ReactivePoolScheduler(const PipelineDeployment& deployment, ReactiveSchedulerOptions options)
    : d_(deployment),
      options_(options),
      served_(deployment.pipelines.size(), 0.0),
      busy_until_(deployment.slots.size(), kMinusInfinity) {
  for (std::uint32_t p = 0; p < d_.pipelines.size(); ++p) {
    const auto& pl = d_.pipelines[p];
    first_pool_.push_back(static_cast<std::uint32_t>(pools_.size()));
    for (int s = 0; s < static_cast<int>(pl.stages.size()); ++s) {
      Pool pool;
      pool.pipeline = p;
      pool.stage = s;
      for (int later = s + 1; later < static_cast<int>(pl.stages.size()); ++later)
        pool.slack += pl.stages[static_cast<std::size_t>(later)].latency.at(pl.planned_batch) +
                      out_transfer(p, later, pl.planned_batch);
      pools_.push_back(std::move(pool));
    }
  }
}

// Shipping a batch's output from `stage` to the next one at full link speed (0 for the last).
Duration ReactivePoolScheduler::out_transfer(std::uint32_t pipeline, int stage, int batch) const {
  const auto& pl = d_.pipelines[pipeline];
  if (stage + 1 >= static_cast<int>(pl.stages.size())) return Duration();
  const auto& next = pl.stages[static_cast<std::size_t>(stage + 1)];
  return d_.transfer_time(pl.stages[static_cast<std::size_t>(stage)].pool.front(), next.pool.front(),
                          next.in_bytes_per_sample * batch);
}

void ReactivePoolScheduler::start(DataPlaneContext& context) {
  ctx_ = &context;
  for (std::uint32_t i = 0; i < pools_.size(); ++i)
    pools_[i].timer = context.clock.create_timer(i);
}

void ReactivePoolScheduler::on_request(const Request& request) {
  // Requests go to the model's pipelines in proportion to their planned throughput: the one
  // furthest behind its share gets the next.
  const auto& pipelines = d_.model_pipelines[request.model];
  std::uint32_t best = pipelines.front();
  double best_ratio = INFINITY;
  for (const auto p : pipelines) {
    const double ratio = served_[p] / std::max(d_.pipelines[p].assigned_rps, 1e-9);
    if (ratio < best_ratio) {
      best = p;
      best_ratio = ratio;
    }
  }
  served_[best] += 1;
  enqueue(first_pool_[best], request);
}

void ReactivePoolScheduler::on_timer(std::uint64_t token) {
  schedule(static_cast<std::uint32_t>(token));
}

void ReactivePoolScheduler::enqueue(std::uint32_t pool, const Request& request) {
  insert_by_deadline(pools_[pool].queue, request);
  schedule(pool);
}

std::uint32_t ReactivePoolScheduler::earliest_worker(const Pool& pool, Time now, Time* free_at) const {
  const auto& stage = d_.pipelines[pool.pipeline].stages[static_cast<std::size_t>(pool.stage)];
  std::uint32_t best = stage.pool.front();
  Time best_t = kNever;
  for (const auto g : stage.pool) {
    const Time t = std::max(now, busy_until_[g]);
    if (t < best_t) {
      best = g;
      best_t = t;
    }
  }
  *free_at = best_t;
  return best;
}

void ReactivePoolScheduler::schedule(std::uint32_t index) {
  auto& pool = pools_[index];
  const auto& pl = d_.pipelines[pool.pipeline];
  const auto& stage = pl.stages[static_cast<std::size_t>(pool.stage)];
  const Time now = ctx_->clock.now();
  auto cost = [&](int b) { return stage.latency.at(b) + out_transfer(pool.pipeline, pool.stage, b); };
  while (!pool.queue.empty()) {
    const Request head = pool.queue.front();
    Time free_at;
    const auto worker = earliest_worker(pool, now, &free_at);
    const Duration budget = head.deadline - pool.slack - free_at;
    int lowest = 1;
    if (options_.first_look_min_fraction > 0 && pool.seen_head != head.id)
      lowest = std::clamp(static_cast<int>(std::lround(options_.first_look_min_fraction * pl.planned_batch)), 1,
                          pl.planned_batch);
    int b = pl.planned_batch;
    while (b >= lowest && cost(b) > budget)
      --b;
    if (b < lowest) {
      ctx_->outcomes.dropped(head, DropReason::DeadlineUnreachable);
      pool.queue.pop_front();
      continue;
    }
    pool.seen_head = head.id;
    const int queued = static_cast<int>(pool.queue.size());
    if (queued < b) {
      const Time wake = head.deadline - pool.slack - cost(queued + 1) + Duration::nanoseconds(1);
      if (wake > now) {
        ctx_->clock.arm(pool.timer, wake);
        return;
      }
      b = queued;
    }
    Batch batch;
    batch.id = next_id_++;
    batch.model = pl.model;
    batch.gpu = worker;
    batch.start = free_at;
    batch.predicted_end = free_at + stage.latency.at(b);
    batch.stage = static_cast<std::uint32_t>(pool.stage);
    batch.final_stage = pool.stage + 1 == static_cast<int>(pl.stages.size());
    batch.kernel = stage.kernel;
    batch.requests.assign(pool.queue.begin(), pool.queue.begin() + b);
    pool.queue.erase(pool.queue.begin(), pool.queue.begin() + b);
    busy_until_[worker] = batch.predicted_end;
    if (!batch.final_stage) running_.emplace(batch.id, Moving{index + 1, batch.requests});
    ctx_->executor.execute(std::move(batch));
  }
  ctx_->clock.disarm(pool.timer);
}

void ReactivePoolScheduler::on_batch_done(const BatchDone& done) {
  // Our estimate may have been early or late; the worker is free now if nothing else was sent.
  if (busy_until_[done.gpu] < done.end) busy_until_[done.gpu] = done.end;
  const auto it = running_.find(done.id);
  if (it == running_.end()) return;
  Moving m = std::move(it->second);
  running_.erase(it);
  const auto& next = pools_[m.pool];
  const auto& stage = d_.pipelines[next.pipeline].stages[static_cast<std::size_t>(next.stage)];
  Time free_at;
  const auto to = earliest_worker(next, ctx_->clock.now(), &free_at);
  const auto id = next_id_++;
  const auto bytes = static_cast<std::uint64_t>(stage.in_bytes_per_sample) * m.requests.size();
  ctx_->executor.transfer(Transfer{id, done.gpu, to, bytes, ctx_->clock.now(), done.id, m.requests});
  moving_.emplace(id, std::move(m));
}

void ReactivePoolScheduler::on_transfer_done(const TransferDone& done) {
  const auto it = moving_.find(done.id);
  if (it == moving_.end()) return;
  Moving m = std::move(it->second);
  moving_.erase(it);
  auto& pool = pools_[m.pool];
  for (const auto& r : m.requests)
    insert_by_deadline(pool.queue, r);
  schedule(m.pool);
}

}  // namespace servescope::engine
