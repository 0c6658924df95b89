// A piecewise-constant rate as a person types it (the GUI's workload dialog): "10:1, 20:2.5,
// 30:0.5" is 10 s at the workload's rate, then 20 s at 2.5 times it, then 0.5 times it to the
// end (seed 000's diurnal-style load steps; docs/formats.md "Workloads", `piecewise`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/workload/workload.h"

namespace servescope {

// Throws QueryError naming the segment and what is wrong with it.
std::vector<RateSegment> parse_rate_segments(std::string_view text);
std::string format_rate_segments(const std::vector<RateSegment>& segments);

}  // namespace servescope
