// ℓ(b) for one model on one GPU type and share, in the form the schedulers' inner loops need:
// an inline lookup and "largest batch that fits in a budget" in O(1) for linear fits and
// O(log B) for tables. Built once from a ModelProfile, so a scheduler never pays for the
// general profile query per request.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "engine/dataplane/request.h"
#include "model/profile/latency_distribution.h"
#include "model/profile/model_profile.h"

namespace servescope::engine {

class BatchLatency {
 public:
  BatchLatency() = default;
  // Throws QueryError when the profile does not cover (gpu, share). `blocks` narrows a
  // block-form profile to one partition of a pipeline (seed 000); absent, the whole model.
  BatchLatency(const ModelProfile& profile, std::string_view gpu, GpuShare share, int max_batch_cap = 0,
               std::optional<BlockRange> blocks = std::nullopt);
  static BatchLatency linear(Duration alpha, Duration beta, int max_batch);

  int max_batch() const { return max_batch_; }
  // Latency of a batch of b, 1 ≤ b ≤ max_batch().
  Duration at(int b) const {
    if (linear_) return Duration::nanoseconds(alpha_ns_ * b + beta_ns_);
    return Duration::nanoseconds(table_[static_cast<std::size_t>(b - 1)]);
  }
  // Largest b ≤ limit with at(b) ≤ budget; 0 when even b = 1 does not fit.
  int largest_within(Duration budget, int limit) const;

  // A batch of b as a real device runs it (issue 46): at(b) scaled by the measured spread at the
  // quantile u in [0, 1), where the profile keeps distributions (ModelProfile::latency_levels);
  // at(b) where it does not. The caller draws u, so that a run stays reproducible by its seed.
  Duration sample(int b, double u) const {
    if (spread_.empty()) return at(b);
    const auto* ratio = &spread_[static_cast<std::size_t>(b - 1) * kDistributionLevels.size()];
    const double factor = at_level(u, [ratio](std::size_t i) { return static_cast<double>(ratio[i]); });
    return Duration::nanoseconds(std::llround(static_cast<double>(at(b).count_ns()) * factor));
  }
  bool has_spread() const { return !spread_.empty(); }

 private:
  bool linear_ = true;
  std::int64_t alpha_ns_ = 0, beta_ns_ = 0;
  std::vector<std::int64_t> table_;  // [b-1], non-decreasing
  int max_batch_ = 0;
  // [(b−1)·levels + level]: the level's latency over the median's, for sample(); empty without
  // measured distributions. Single precision: a ratio needs no more, and it stays small.
  std::vector<float> spread_;
};

}  // namespace servescope::engine
