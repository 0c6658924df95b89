// A monotone fit of latency over batch size (issue 46): the non-decreasing sequence nearest to the
// measured one in least squares, by pooling adjacent violators. A batch measured slower than the
// next is averaged with it, so that one slow sample lowers nothing and raises only its neighbours
// by what the pair shares, where a running maximum (BatchCurve's repair of published tables)
// would carry it forward to every larger batch.
#pragma once

#include <vector>

#include "model/core/time.h"

namespace servescope {

// Weighted by `weights` (e.g. the runs behind each value; equal when empty). The result has the
// input's length, rounded to whole nanoseconds.
std::vector<Duration> isotonic_fit(const std::vector<Duration>& values, const std::vector<double>& weights = {});

}  // namespace servescope
