#include "engine/glet/glet_data_plane.h"

#include <algorithm>

namespace servescope::engine {

GletDataPlane::GletDataPlane(const GletDeployment& deployment, std::vector<Duration> slo, GletDataPlaneOptions options,
                             BatchId first_batch_id)
    : d_(deployment),
      slo_(std::move(slo)),
      options_(options),
      model_lanes_(slo_.size()),
      slot_lanes_(deployment.slots.size()),
      next_batch_(first_batch_id) {
  for (std::uint32_t s = 0; s < d_.glets.size(); ++s)
    for (std::size_t h = 0; h < d_.glets[s].hosted.size(); ++h) {
      const auto model = d_.glets[s].hosted[h].model;
      if (model >= model_lanes_.size()) continue;
      model_lanes_[model].push_back(lanes_.size());
      slot_lanes_[s].push_back(lanes_.size());
      lanes_.push_back(Lane{s, h, {}, false, 0, 0});
    }
}

void GletDataPlane::start(DataPlaneContext& context) {
  ctx_ = &context;
  for (std::size_t l = 0; l < lanes_.size(); ++l)
    lanes_[l].timer = context.clock.create_timer(l);
}

void GletDataPlane::on_request(const Request& request) {
  const auto& lanes = model_lanes_[request.model];
  if (lanes.empty()) {
    ctx_->outcomes.dropped(request, DropReason::NoCapacity);
    return;
  }
  // Weighted round robin: the lane with the least credit takes it and pays 1 / its planned rate,
  // so each glet's share follows the rate it was planned for (ties: plan order).
  std::size_t best = lanes.front();
  for (const auto l : lanes)
    if (lanes_[l].credit < lanes_[best].credit) best = l;
  const auto& h = d_.glets[lanes_[best].slot].hosted[lanes_[best].hosted];
  lanes_[best].credit += 1.0 / std::max(h.rate_rps, 1e-9);
  lanes_[best].queue.emplace_back(request, ctx_->clock.now());
  serve(best);
}

std::vector<Request> GletDataPlane::take_queued() {
  std::vector<Request> out;
  for (auto& lane : lanes_) {
    for (const auto& [r, joined] : lane.queue)
      out.push_back(r);
    lane.queue.clear();
    ctx_->clock.disarm(lane.timer);
  }
  std::ranges::sort(out, {}, &Request::arrival);
  return out;
}

void GletDataPlane::on_timer(std::uint64_t token) {
  serve(static_cast<std::size_t>(token));
}

void GletDataPlane::on_batch_done(const BatchDone& done) {
  for (const auto l : slot_lanes_[done.gpu])
    if (lanes_[l].in_flight && d_.glets[done.gpu].hosted[lanes_[l].hosted].model == done.model) {
      lanes_[l].in_flight = false;
      serve(l);
      return;
    }
}

Duration GletDataPlane::budget(const Request& r) const {
  return Duration::nanoseconds(
      static_cast<std::int64_t>(options_.drop_ratio * static_cast<double>(slo_[r.model].count_ns())));
}

void GletDataPlane::serve(std::size_t index) {
  auto& lane = lanes_[index];
  const auto& h = d_.glets[lane.slot].hosted[lane.hosted];
  const Time now = ctx_->clock.now();
  // Drop what cannot be on time: eager, when waiting plus one batch passes the budget; lazy, when
  // the wait alone has.
  const int size = static_cast<int>(std::min<std::size_t>(lane.queue.size(), static_cast<std::size_t>(h.batch)));
  const Duration run = options_.drop == GletDropRule::Eager ? h.expected(std::max(size, 1)) : Duration();
  while (!lane.queue.empty() && now - lane.queue.front().first.arrival + run > budget(lane.queue.front().first)) {
    ctx_->outcomes.dropped(lane.queue.front().first, DropReason::DeadlineUnreachable);
    lane.queue.pop_front();
  }
  if (lane.queue.empty()) {
    ctx_->clock.disarm(lane.timer);
    return;
  }
  if (lane.in_flight) return;  // the next batch keeps gathering while this one runs
  const auto& [head, joined] = lane.queue.front();
  // Gather for at most one duty cycle, and no longer than the head can wait and still finish.
  const Time wake =
      std::min(joined + d_.glets[lane.slot].duty_cycle, head.arrival + budget(head) - h.expected(h.batch));
  if (static_cast<int>(lane.queue.size()) < h.batch && wake > now) {
    ctx_->clock.arm(lane.timer, wake);
    return;
  }
  ctx_->clock.disarm(lane.timer);
  Batch b;
  b.id = next_batch_++;
  b.model = h.model;
  b.gpu = lane.slot;
  b.start = now;
  b.predicted_end = now + h.latency;  // at the planned batch; a catch-up batch runs longer
  auto n = std::min<std::size_t>(lane.queue.size(), static_cast<std::size_t>(h.batch));
  if (options_.catch_up)
    // Grow while the oldest request still finishes within its budget at the larger size.
    while (n < lane.queue.size() && n < h.latency_by_batch.size() &&
           now + h.expected(static_cast<int>(n) + 1) <= head.arrival + budget(head))
      ++n;
  for (std::size_t i = 0; i < n; ++i) {
    b.requests.push_back(lane.queue.front().first);
    lane.queue.pop_front();
  }
  lane.in_flight = true;
  ctx_->executor.execute(std::move(b));
  if (!lane.queue.empty()) {
    // The rest start gathering now; they are looked at again when this batch is done.
    lane.queue.front().second = std::max(lane.queue.front().second, now);
  }
}

}  // namespace servescope::engine
