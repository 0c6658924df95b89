#include "model/profile/batch_curve.h"

#include <algorithm>
#include <stdexcept>

namespace servescope {

BatchCurve::BatchCurve(std::vector<int> batches, std::vector<Duration> latency, int* adjusted)
    : batches_(std::move(batches)), latency_(std::move(latency)) {
  if (batches_.size() != latency_.size()) throw std::invalid_argument("batch sizes and latencies differ in number");
  for (std::size_t i = 0; i < batches_.size(); ++i) {
    if (batches_[i] < 1) throw std::invalid_argument("batch sizes must be at least 1");
    if (i > 0 && batches_[i] <= batches_[i - 1]) throw std::invalid_argument("batch sizes must be strictly increasing");
    if (latency_[i] < Duration()) throw std::invalid_argument("latencies must not be negative");
  }
  int raised = 0;
  for (std::size_t i = 1; i < latency_.size(); ++i) {
    if (latency_[i] < latency_[i - 1]) {
      latency_[i] = latency_[i - 1];
      ++raised;
    }
  }
  if (adjusted) *adjusted = raised;
}

std::optional<Duration> BatchCurve::at(int batch) const {
  if (batches_.empty() || batch < batches_.front() || batch > batches_.back()) return std::nullopt;
  const auto it = std::ranges::lower_bound(batches_, batch);
  const auto hi = static_cast<std::size_t>(it - batches_.begin());
  if (*it == batch) return latency_[hi];
  const auto lo = hi - 1;
  const auto b0 = batches_[lo], b1 = batches_[hi];
  const auto l0 = latency_[lo].count_ns(), l1 = latency_[hi].count_ns();
  // Integer interpolation, rounded to nearest: deterministic on every platform.
  const auto num = (l1 - l0) * (batch - b0);
  const auto den = static_cast<std::int64_t>(b1 - b0);
  return Duration::nanoseconds(l0 + (num + den / 2) / den);
}

std::vector<int> batch_range(int n) {
  std::vector<int> out(static_cast<std::size_t>(std::max(n, 0)));
  for (int i = 0; i < n; ++i)
    out[static_cast<std::size_t>(i)] = i + 1;
  return out;
}

}  // namespace servescope
