// A block table made from measured distributions (issue 46): per block and batch size, the
// distribution of its timed runs, fitted monotone over batch sizes level by level (weighted by
// runs), its levels kept in order, and the median and 99th percentile rows read from the fit.
// What the profiler writes, and what calibration from a live run writes again.
#pragma once

#include <string>
#include <vector>

#include "model/profile/latency_distribution.h"
#include "model/profile/model_profile.h"

namespace servescope {

// `measured[block][i]` is the distribution at `batches[i]` (strictly increasing). Throws
// std::invalid_argument on ragged rows.
BlockTable measured_block_table(std::string gpu, GpuShare share, const std::vector<int>& batches,
                                const std::vector<std::vector<LatencyDistribution>>& measured);

}  // namespace servescope
