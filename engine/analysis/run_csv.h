// A run's chart curves as one tidy CSV (chart, series, x, y, with units in the chart name), for
// spreadsheets and plotting scripts: File → Export and `servescope-cli export metrics-csv`.
#pragma once

#include <ostream>

#include "engine/analysis/run_series.h"

namespace servescope::engine {

void write_run_csv(std::ostream& out, const RunSeries& series);

}  // namespace servescope::engine
