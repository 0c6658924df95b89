// Latency as a function of batch size at profiled points. Between two profiled sizes the
// latency is interpolated linearly, which keeps a non-decreasing curve non-decreasing; outside
// the profiled range there is no answer (the caller reports it). Curves are made monotone when
// built (running maximum), as the PPipe and glet digests require: a profile where batch 5 is
// faster than batch 4 is measurement noise, and every batch-size search assumes monotonicity.
#pragma once

#include <optional>
#include <vector>

#include "model/core/time.h"

namespace servescope {

class BatchCurve {
 public:
  BatchCurve() = default;
  // `batches` strictly increasing and ≥ 1, one latency each. Returns through `adjusted` how many
  // points were raised to restore monotonicity. Throws std::invalid_argument on bad shapes.
  BatchCurve(std::vector<int> batches, std::vector<Duration> latency, int* adjusted = nullptr);

  const std::vector<int>& batches() const { return batches_; }
  const std::vector<Duration>& latency() const { return latency_; }
  int min_batch() const { return batches_.empty() ? 0 : batches_.front(); }
  int max_batch() const { return batches_.empty() ? 0 : batches_.back(); }
  bool empty() const { return batches_.empty(); }

  std::optional<Duration> at(int batch) const;

  bool operator==(const BatchCurve&) const = default;

 private:
  std::vector<int> batches_;
  std::vector<Duration> latency_;
};

// 1, 2, ..., n: the batch axis of dense profiles.
std::vector<int> batch_range(int n);

}  // namespace servescope
