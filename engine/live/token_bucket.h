// How often one peer may ask the scheduler for something (docs/protocol.md "Limits"): a token
// bucket, `per_second` on average and `burst` at once. A peer's commands cost the loop that
// serves everyone's requests, so one peer's flood must end at its own bucket, before its command
// is parsed or answered, and never slow another peer's service.
#pragma once

#include <algorithm>
#include <chrono>

namespace servescope::engine::live {

class TokenBucket {
 public:
  using Time = std::chrono::steady_clock::time_point;

  TokenBucket(double per_second, double burst) : per_second_(per_second), burst_(burst), tokens_(burst) {}

  // Whether one more may go at `now` (and it is counted if so).
  bool take(Time now) {
    refill(now);
    if (tokens_ < 1.0) return false;
    tokens_ -= 1.0;
    return true;
  }

 private:
  void refill(Time now) {
    if (now > last_) {
      tokens_ = std::min(burst_, tokens_ + std::chrono::duration<double>(now - last_).count() * per_second_);
      last_ = now;
    }
  }

  double per_second_, burst_, tokens_;
  Time last_{};
};

}  // namespace servescope::engine::live
