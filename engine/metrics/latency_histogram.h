// Latencies in bounded memory: log-linear buckets (2^k sub-buckets per power of two), so a run
// of any length keeps a fixed-size histogram and percentiles come back within a relative error
// of 2^-k. Exact counts of SLO misses are kept elsewhere; this is for percentiles and CDFs.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "model/core/time.h"

namespace servescope::engine {

class LatencyHistogram {
 public:
  // sub_bucket_bits 6: ±0.8 % (per-model histograms); 8: ±0.2 % (run-wide ones).
  explicit LatencyHistogram(int sub_bucket_bits = 6);

  void add(Duration d, std::uint64_t count = 1);
  void merge(const LatencyHistogram& other);
  std::uint64_t count() const { return count_; }
  Duration max() const { return max_; }
  Duration min() const { return count_ ? min_ : Duration(); }
  double sum_ns() const { return sum_ns_; }
  double mean_ns() const { return count_ ? sum_ns_ / static_cast<double>(count_) : 0.0; }
  // q in [0, 1]: the smallest bucket value v with at least q of the samples ≤ v (upper edge).
  Duration quantile(double q) const;
  // (upper edge, cumulative fraction) for every non-empty bucket: a CDF for charts.
  std::vector<std::pair<Duration, double>> cdf() const;

 private:
  std::size_t index_of(std::int64_t ns) const;
  std::int64_t upper_edge(std::size_t index) const;

  int bits_;
  std::vector<std::uint64_t> buckets_;
  std::uint64_t count_ = 0;
  double sum_ns_ = 0;
  Duration min_ = Duration::max();
  Duration max_;
};

}  // namespace servescope::engine
