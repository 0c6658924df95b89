#include "engine/dataplane/controller_cost.h"

#include <algorithm>

#include "engine/core/elapsed.h"
#include "engine/core/unit_draw.h"

namespace servescope::engine {
namespace {

// The controller's own timer; the wrapped plane's timers are 1 + their index.
constexpr std::uint64_t kControllerToken = 0;

}  // namespace

CostedDataPlane::CostedDataPlane(std::unique_ptr<DataPlane> inner, ControllerCost cost)
    : inner_(std::move(inner)), cost_(cost) {
  if (cost_.cores < 1)
    throw QueryError("a controller needs at least one core (got " + std::to_string(cost_.cores) + ")");
  if (cost_.per_event < Duration()) throw QueryError("a controller's cost per event cannot be negative");
  if (cost_.lateness && (cost_.lateness->quantiles.empty() || cost_.lateness->quantiles.front() < Duration()))
    throw QueryError("a controller's lateness needs a distribution of non-negative delays");
  core_free_.assign(static_cast<std::size_t>(cost_.cores), Time());
  lateness_rng_.seed(cost_.lateness_seed ^ 0x6c8e9cf570932bd5ULL);  // not the arrivals' stream of the same seed
  stats_.cost = cost_;
}

void CostedDataPlane::start(DataPlaneContext& context) {
  outer_ = &context;
  controller_timer_ = context.clock.create_timer(kControllerToken);
  inner_context_.emplace(DataPlaneContext{*this, context.executor, context.outcomes});
  inner_->start(*inner_context_);
}

// The wrapped plane's timer ids are its timers' indices here; each maps to one of the world's.
TimerId CostedDataPlane::create_timer(std::uint64_t token) {
  inner_tokens_.push_back(token);
  armings_.push_back(0);
  outer_timers_.push_back(outer_->clock.create_timer(inner_tokens_.size()));
  return static_cast<TimerId>(inner_tokens_.size() - 1);
}

void CostedDataPlane::arm(TimerId timer, Time at) {
  ++armings_.at(timer);
  outer_->clock.arm(outer_timers_[timer], at);
}

void CostedDataPlane::disarm(TimerId timer) {
  ++armings_.at(timer);
  outer_->clock.disarm(outer_timers_[timer]);
}

void CostedDataPlane::on_timer(std::uint64_t token) {
  if (token == kControllerToken) {
    drain();
    return;
  }
  const std::size_t index = token - 1;
  arrive(TimerFired{index, armings_[index]}, true);
}

void CostedDataPlane::arrive(Event event, bool can_be_late) {
  const Time t = now();
  Time done = t;
  if (cost_.per_event > Duration()) {
    // The core that frees first takes it; cores are few, so a scan is cheapest.
    auto core = std::ranges::min_element(core_free_);
    done = std::max(t, *core) + cost_.per_event;
    *core = done;
  }
  if (can_be_late && cost_.lateness) done += cost_.lateness->quantile(unit_draw(lateness_rng_));
  if (done == t) {
    deliver(event);
    return;
  }
  pending_.push({done, seq_++, t, std::move(event)});
  if (pending_.top().seq == seq_ - 1) outer_->clock.arm(controller_timer_, done);  // it is now the first due
}

void CostedDataPlane::drain() {
  const Time t = now();
  while (!pending_.empty() && pending_.top().done <= t) {
    const Pending p = pending_.top();
    pending_.pop();
    const Duration wait = t - p.arrived;
    stats_.total_wait += wait;
    stats_.max_wait = std::max(stats_.max_wait, wait);
    deliver(p.event);
  }
  if (!pending_.empty()) outer_->clock.arm(controller_timer_, pending_.top().done);
}

void CostedDataPlane::deliver(const Event& event) {
  const auto start = WallClock::now();
  std::visit(
      [&](const auto& e) {
        using E = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<E, Request>)
          inner_->on_request(e);
        else if constexpr (std::is_same_v<E, BatchDone>)
          inner_->on_batch_done(e);
        else if constexpr (std::is_same_v<E, TransferDone>)
          inner_->on_transfer_done(e);
        else if (e.arming == armings_[e.index])
          inner_->on_timer(inner_tokens_[e.index]);
      },
      event);
  stats_.handler_seconds += seconds_since(start);
  ++stats_.events;
}

}  // namespace servescope::engine
