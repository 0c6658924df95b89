// The headline figures that compare runs of one scenario (README "The GUI", Compare tab; PPipe's
// Table 4 and Fig. 6/7): SLO attainment, goodput, p99 latency, mean batch, GPUs used, the least
// busy GPU class's utilisation (PPipe's point: low-class GPUs left idle), the hourly price of
// the GPUs the run kept busy, and, when the project holds a load sweep of the same source, the
// highest load factor at 99 % attainment.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/serving/run_result_json.h"
#include "model/gpu/gpu_catalog.h"

namespace servescope::engine {

struct RunHeadline {
  std::string system;
  RunSummary summary;  // as the run file holds it
  std::string least_busy_type;
  double least_busy = 0;                  // its busy fraction
  std::optional<double> price_per_hour;   // of the busy GPUs; none when a price is unknown
  std::optional<double> max_load_factor;  // from a matching sweep
};

// Throws InputError (naming `what`) when the run JSON lacks its summary or GPU figures.
RunHeadline run_headline(const nlohmann::json& run, const GpuCatalog& catalog, const std::string& what = "run");

}  // namespace servescope::engine
