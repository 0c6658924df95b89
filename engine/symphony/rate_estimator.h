// Request rate of one model as Symphony's reference code measures it (seed 002 §2.2): arrivals
// counted in fixed bins (50 ms) over a sliding window of bins (100, so 5 s), mean rate over the
// bins seen so far. Advanced lazily by arrivals: no timer, O(1) amortised per request.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/dataplane/request.h"

namespace servescope::engine {

class RateEstimator {
 public:
  RateEstimator(Duration bin = Duration::milliseconds(50), int bins = 100);

  // Records an arrival at `t` (non-decreasing). Returns true when at least one bin closed,
  // i.e. when the estimate may have changed.
  bool record(Time t);
  // Requests per second over the closed bins; nullopt before the first bin closes.
  std::optional<double> rate_rps() const;

 private:
  bool advance_to(Time t);

  Duration bin_;
  std::vector<std::uint32_t> counts_;
  std::size_t closed_ = 0;  // closed bins in the window (≤ counts_.size())
  std::uint64_t window_sum_ = 0;
  std::int64_t current_bin_ = 0;
  std::uint32_t current_count_ = 0;
  bool started_ = false;
};

}  // namespace servescope::engine
