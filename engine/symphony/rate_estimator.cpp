#include "engine/symphony/rate_estimator.h"

#include <optional>

namespace servescope::engine {

RateEstimator::RateEstimator(Duration bin, int bins) : bin_(bin), counts_(static_cast<std::size_t>(bins), 0) {}

bool RateEstimator::advance_to(Time t) {
  const auto bin = t.count_ns() / bin_.count_ns();
  if (!started_) {
    started_ = true;
    current_bin_ = bin;
    return false;
  }
  if (bin <= current_bin_) return false;
  // Close the current bin, then any empty bins in between (at most a window's worth matter).
  const auto n = counts_.size();
  auto push = [&](std::uint32_t c) {
    const auto slot = static_cast<std::size_t>(current_bin_) % n;
    if (closed_ == n)
      window_sum_ -= counts_[slot];
    else
      ++closed_;
    counts_[slot] = c;
    window_sum_ += c;
    ++current_bin_;
  };
  push(current_count_);
  current_count_ = 0;
  const auto gap = std::min<std::int64_t>(bin - current_bin_, static_cast<std::int64_t>(n));
  for (std::int64_t i = 0; i < gap; ++i)
    push(0);
  current_bin_ = bin;
  return true;
}

bool RateEstimator::record(Time t) {
  const bool changed = advance_to(t);
  ++current_count_;
  return changed;
}

std::optional<double> RateEstimator::rate_rps() const {
  if (closed_ == 0) return std::nullopt;
  return static_cast<double>(window_sum_) / (static_cast<double>(closed_) * bin_.to_s());
}

}  // namespace servescope::engine
