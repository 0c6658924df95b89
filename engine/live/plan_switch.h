// A live plan switch under way (PPipe digest §2.9, flush and switch): the plan being switched to,
// when the flush began and how long it may last, and the requests that arrive meanwhile, held for
// the new plane. It also counts the switches and the plan's epoch, which a batch or transfer id
// carries on the wire so that a late report from a plan switched away from matches nothing. The
// scheduler decides when the old plane has flushed; this says when the switch is due.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/serving/prepared_serving.h"

namespace servescope::engine::live {

class PlanSwitch {
 public:
  bool under_way() const { return next_ != nullptr; }
  // Only when no switch is under way (the scheduler refuses a second one, saying why).
  void begin(PreparedServing next, Time now, Duration flush_limit);
  const PreparedServing& next() const { return *next_; }

  // A request that arrived during the flush, for the new plane.
  void hold(const Request& request) { held_.push_back(request); }
  const std::vector<Request>& held() const { return held_; }

  // Whether the new plane takes over now: the old one has `flushed`, or the flush limit passed.
  bool due(Time now, bool flushed) const;
  struct Done {
    PreparedServing next;
    std::vector<Request> held;  // in arrival order
    Duration flush;             // how long the old plane had
  };
  // Ends the switch: the next epoch begins.
  Done finish(Time now);

  std::uint64_t switches() const { return switches_; }
  std::uint64_t epoch() const { return epoch_; }

 private:
  std::unique_ptr<PreparedServing> next_;
  Time started_;
  Duration flush_limit_;
  std::vector<Request> held_;
  std::uint64_t switches_ = 0;
  std::uint64_t epoch_ = 0;
};

}  // namespace servescope::engine::live
