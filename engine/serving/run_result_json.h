// The JSON a simulation run writes (docs/formats.md, "Simulation results"): configuration,
// headline metrics, per-model metrics, histograms, per-GPU utilisation and time series. The
// timeline file is engine/timeline/timeline_data.h's.
#pragma once

#include <nlohmann/json.hpp>

#include "engine/serving/simulation_result.h"
#include "model/io/json_cursor.h"

namespace servescope::engine {

nlohmann::json run_result_to_json(const SimulationResult& result, const std::string& scenario_name);

// Headline numbers of a run, shared by the JSON writer and its reader, the CLI's text output, the
// goodput search and the GUI's comparisons (analysis/run_headline.h).
struct RunSummary {
  std::uint64_t arrivals = 0, completed = 0, on_time = 0, late = 0, dropped = 0, unfinished = 0;
  double slo_attainment = 1, goodput_rps = 0, bad_rate = 0;
  Duration p50, p99, max;
  double mean_batch = 0;
  int median_batch = 0;
  double mean_gpu_busy = 0;
  int gpus_used = 0;            // GPUs busy more than 1 % of the window
  double worst_model_miss = 0;  // the largest per-model fraction of requests that missed their SLO
};
RunSummary summarize_run(const SimulationResult& result);
// The summary a run file holds (its "summary" object), read back as written: each member through
// the cursor, so a wrong type is an InputError naming its place; a missing one reads as 0.
RunSummary run_summary_from_json(const JsonCursor& summary);

}  // namespace servescope::engine
