#include "engine/metrics/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace servescope::engine {

LatencyHistogram::LatencyHistogram(int sub_bucket_bits) : bits_(sub_bucket_bits) {}

std::size_t LatencyHistogram::index_of(std::int64_t ns) const {
  const auto v = static_cast<std::uint64_t>(std::max<std::int64_t>(ns, 0));
  const auto sub = std::uint64_t{1} << bits_;
  if (v < sub) return static_cast<std::size_t>(v);  // exact below 2^bits ns
  const int msb = 63 - std::countl_zero(v);
  const int shift = msb - bits_;
  const auto mantissa = (v >> shift) - sub;  // 0 .. sub-1
  return static_cast<std::size_t>(sub + static_cast<std::uint64_t>(shift) * sub + mantissa);
}

std::int64_t LatencyHistogram::upper_edge(std::size_t index) const {
  const auto sub = std::size_t{1} << bits_;
  if (index < sub) return static_cast<std::int64_t>(index);
  const auto shift = (index - sub) / sub;
  const auto mantissa = (index - sub) % sub;
  return static_cast<std::int64_t>((((sub + mantissa) + 1) << shift) - 1);
}

void LatencyHistogram::add(Duration d, std::uint64_t count) {
  const auto i = index_of(d.count_ns());
  if (i >= buckets_.size()) buckets_.resize(i + 1, 0);
  buckets_[i] += count;
  count_ += count;
  sum_ns_ += static_cast<double>(d.count_ns()) * static_cast<double>(count);
  min_ = std::min(min_, d);
  max_ = std::max(max_, d);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (other.buckets_.size() > buckets_.size()) buckets_.resize(other.buckets_.size(), 0);
  if (other.bits_ == bits_) {
    for (std::size_t i = 0; i < other.buckets_.size(); ++i)
      buckets_[i] += other.buckets_[i];
  } else {
    for (std::size_t i = 0; i < other.buckets_.size(); ++i)
      if (other.buckets_[i]) {
        const auto j = index_of(other.upper_edge(i));
        if (j >= buckets_.size()) buckets_.resize(j + 1, 0);
        buckets_[j] += other.buckets_[i];
      }
  }
  count_ += other.count_;
  sum_ns_ += other.sum_ns_;
  if (other.count_) {
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }
}

Duration LatencyHistogram::quantile(double q) const {
  if (count_ == 0) return Duration();
  const auto rank = static_cast<std::uint64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(count_)));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= std::max<std::uint64_t>(rank, 1))
      return std::min(max_, std::max(min_, Duration::nanoseconds(upper_edge(i))));
  }
  return max_;
}

std::vector<std::pair<Duration, double>> LatencyHistogram::cdf() const {
  std::vector<std::pair<Duration, double>> out;
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    if (!buckets_[i]) continue;
    seen += buckets_[i];
    out.emplace_back(std::min(max_, Duration::nanoseconds(upper_edge(i))),
                     static_cast<double>(seen) / static_cast<double>(count_));
  }
  return out;
}

}  // namespace servescope::engine
