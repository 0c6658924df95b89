// Arrival traces: one arrival time per line, in seconds from any origin, non-decreasing;
// blank lines and `#` comments are skipped. The simulator rescales a trace to the workload's
// rate, so only the shape of the gaps matters (docs/formats.md, "Trace files").
#pragma once

#include <string>
#include <vector>

#include "model/core/time.h"

namespace servescope {

// Offsets from the first arrival. Throws InputError with the line of the first bad value.
std::vector<Duration> load_trace_file(const std::string& path);
std::vector<Duration> parse_trace(const std::string& text, const std::string& file);

}  // namespace servescope
