#include "engine/dataplane/batch_latency.h"

#include "model/core/error.h"

namespace servescope::engine {

BatchLatency::BatchLatency(const ModelProfile& profile, std::string_view gpu, GpuShare share, int max_batch_cap,
                           std::optional<BlockRange> blocks) {
  const int hi = profile.max_batch(gpu, share);
  if (hi == 0) (void)profile.latency({gpu, share, 1, blocks});  // throws the descriptive error
  max_batch_ = max_batch_cap > 0 ? std::min(hi, max_batch_cap) : hi;
  if (profile.form == ProfileForm::Linear) {
    for (const auto& f : profile.linear_fits)
      if (f.gpu == gpu && f.share == share) {
        alpha_ns_ = f.alpha.count_ns();
        beta_ns_ = f.beta.count_ns();
      }
    linear_ = true;
    return;
  }
  if (profile.min_batch(gpu, share) != 1)
    throw QueryError("model '" + profile.name + "' on " + std::string(gpu) +
                     ": schedulers need latencies from batch 1, the profile starts at batch " +
                     std::to_string(profile.min_batch(gpu, share)));
  linear_ = false;
  table_.reserve(static_cast<std::size_t>(max_batch_));
  for (int b = 1; b <= max_batch_; ++b)
    table_.push_back(profile.latency({gpu, share, b, blocks}).count_ns());
  // A published profile keeps no distributions, and its batches run at the table's time.
  if (!profile.latency_levels({gpu, share, 1, blocks})) return;
  spread_.reserve(table_.size() * kDistributionLevels.size());
  for (int b = 1; b <= max_batch_; ++b) {
    const auto levels = *profile.latency_levels({gpu, share, b, blocks});
    const auto median = static_cast<double>(table_[static_cast<std::size_t>(b - 1)]);
    for (const auto& q : levels)
      spread_.push_back(median > 0 ? static_cast<float>(static_cast<double>(q.count_ns()) / median) : 1.0f);
  }
}

BatchLatency BatchLatency::linear(Duration alpha, Duration beta, int max_batch) {
  BatchLatency l;
  l.linear_ = true;
  l.alpha_ns_ = alpha.count_ns();
  l.beta_ns_ = beta.count_ns();
  l.max_batch_ = max_batch;
  return l;
}

int BatchLatency::largest_within(Duration budget, int limit) const {
  limit = std::min(limit, max_batch_);
  if (limit <= 0) return 0;
  const auto b = budget.count_ns();
  if (linear_) {
    if (b < alpha_ns_ + beta_ns_) return 0;
    if (alpha_ns_ == 0) return limit;
    return static_cast<int>(std::min<std::int64_t>(limit, (b - beta_ns_) / alpha_ns_));
  }
  const auto end = table_.begin() + limit;
  return static_cast<int>(std::upper_bound(table_.begin(), end, b) - table_.begin());
}

}  // namespace servescope::engine
