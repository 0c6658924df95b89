// Readable time axes: tick steps of 1, 2 or 5 × 10^k ns chosen so labels stay apart, and times
// written in the unit that suits the step ("250 µs", "1.5 ms", "12 s").
#pragma once

#include <QString>
#include <cstdint>
#include <vector>

namespace servescope::widgets {

// The smallest 1/2/5 step, in ns, whose ticks are at least `min_px` apart at `ns_per_px`.
std::int64_t tick_step_ns(double ns_per_px, double min_px);
// Ticks (multiples of the step) inside [from_ns, to_ns].
std::vector<std::int64_t> ticks(std::int64_t from_ns, std::int64_t to_ns, std::int64_t step_ns);
// `t_ns` in the unit of `step_ns` (ns, µs, ms or s), with as many decimals as the step needs.
QString format_time(std::int64_t t_ns, std::int64_t step_ns);
// Labels for `ticks`, counted from `origin_ns`. Deep into a run at a fine step a label would read
// "23127744.3 µs": then the first tick says where it is in seconds and the others how far past
// it ("+100 ns"), as Nsight Systems and Perfetto label a zoomed-in axis.
std::vector<QString> tick_labels(const std::vector<std::int64_t>& ticks, std::int64_t step_ns, std::int64_t origin_ns);
// A duration for tooltips, as the CLI writes it (model/core/time.h's format_duration).
QString format_duration(std::int64_t ns);

}  // namespace servescope::widgets
