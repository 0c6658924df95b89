#include "engine/live/live_timers.h"

#include <algorithm>

namespace servescope::engine::live {

TimerId LiveTimers::create(std::uint64_t token) {
  tokens_.push_back(token);
  return timers_.add_slot();
}

void LiveTimers::arm(TimerId timer, Time at) {
  timers_.set(timer, TimerKey{at, ++seq_});
}

void LiveTimers::disarm(TimerId timer) {
  timers_.erase(timer);
}

void LiveTimers::complete_at(Time at, BatchDone done) {
  batches_.emplace(at, done);
}

void LiveTimers::deliver_at(Time at, TransferDone done) {
  transfers_.emplace(at, done);
}

std::optional<Time> LiveTimers::next_due() const {
  std::optional<Time> next;
  const auto earlier = [&](Time t) { next = next ? std::min(*next, t) : t; };
  if (!timers_.empty()) earlier(timers_.top_key().at);
  if (!batches_.empty()) earlier(batches_.begin()->first);
  if (!transfers_.empty()) earlier(transfers_.begin()->first);
  return next;
}

std::optional<LiveTimers::Due> LiveTimers::take_due(Time now) {
  const auto next = next_due();
  if (!next || *next > now) return std::nullopt;
  if (!timers_.empty() && timers_.top_key().at == *next) return Due{*next, tokens_[timers_.pop()]};
  if (!batches_.empty() && batches_.begin()->first == *next) {
    Due due{*next, batches_.begin()->second};
    batches_.erase(batches_.begin());
    return due;
  }
  Due due{*next, transfers_.begin()->second};
  transfers_.erase(transfers_.begin());
  return due;
}

void LiveTimers::clear() {
  timers_ = IndexedHeap<TimerKey>();
  tokens_.clear();
  batches_.clear();
  transfers_.clear();
}

}  // namespace servescope::engine::live
