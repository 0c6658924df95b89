// The curves a run's charts draw (README "The GUI", Charts tab), read from the run JSON the
// simulator writes (docs/formats.md, "Simulation results"): SLO attainment and goodput per time bin,
// busy time per GPU class per bin (weighted by share, over the class's GPUs), the batch-size
// histogram, the latency CDF, Symphony's advised GPU count per autoscaling window, and from load
// sweeps SLO attainment against load factor (PPipe's Fig. 6/7). Qt-free: the GUI and tests share it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

namespace servescope::engine {

struct SeriesPoint {
  double x = 0, y = 0;
  bool operator==(const SeriesPoint&) const = default;
};

struct Series {
  std::string name;
  std::vector<SeriesPoint> points;
};

struct RunSeries {
  Series attainment_pct;             // x: s, y: % of the bin's arrivals on time (bins with arrivals)
  Series goodput_rps;                // x: s, y: on-time requests per second
  std::vector<Series> busy_by_type;  // x: s, y: % busy, one per GPU type
  Series batch_sizes;                // x: batch size, y: batches
  Series latency_cdf;                // x: ms, y: fraction of requests at or below
  Series advised_gpus;               // x: s (window start), y: GPUs advised for the next window
  Series used_gpus;                  // x: s, y: GPUs busy more than 1 % in the bin
};

// Throws InputError naming `what` and the JSON path when the run JSON lacks the parts, they do
// not fit, or a value has the wrong type or range.
RunSeries run_series(const nlohmann::json& run, const std::string& what = "run");

// SLO attainment and goodput per bin from the counts themselves (requests arrived and on time
// per bin of `bin_s` seconds; as long as each other), as run_series draws them: what a live view
// redraws every second without writing the whole run as JSON first.
void attainment_and_goodput(std::span<const std::uint64_t> arrivals, std::span<const std::uint64_t> on_time,
                            double bin_s, Series& attainment_pct, Series& goodput_rps);
// The same counts in bins `k` times as wide (the last one holds what is left): a chart of an
// hours-long session needs no more points than it has pixels, and drawing 3,600 a second would
// cost the window more each minute.
std::vector<std::uint64_t> coarser_bins(std::span<const std::uint64_t> counts, std::size_t k);

// SLO attainment (%) against load factor, from a `kind: load-sweep` document, named after its
// system; points in increasing load factor. Throws InputError as run_series does.
Series attainment_vs_load(const nlohmann::json& sweep, const std::string& what = "sweep");

// At most `max_points` points that keep each bucket's first, lowest, highest and last point in
// order (min/max decimation), so a chart of a long series keeps its peaks.
std::vector<SeriesPoint> decimate(const std::vector<SeriesPoint>& points, std::size_t max_points);

}  // namespace servescope::engine
