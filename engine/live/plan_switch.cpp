#include "engine/live/plan_switch.h"

#include <cassert>

namespace servescope::engine::live {

void PlanSwitch::begin(PreparedServing next, Time now, Duration flush_limit) {
  assert(!next_);
  next_ = std::make_unique<PreparedServing>(std::move(next));
  started_ = now;
  flush_limit_ = flush_limit;
}

bool PlanSwitch::due(Time now, bool flushed) const {
  return next_ && (flushed || now - started_ >= flush_limit_);
}

PlanSwitch::Done PlanSwitch::finish(Time now) {
  Done done{std::move(*next_), std::move(held_), now - started_};
  next_.reset();
  held_.clear();
  ++switches_;
  ++epoch_;
  return done;
}

}  // namespace servescope::engine::live
