// A live run beside the simulator's prediction of it (README "The GUI", Prediction tab; issue 46
// item 6; docs/reproduction/fidelity.md measures the same gap in bulk): per model, SLO
// attainment, goodput and p99 on both sides, then the largest differences, each with the cause
// the two runs measured: more late or dropped requests (by reason, which names lost workers),
// batches slower than predicted (the median time of a batch size, live against predicted), and
// time a slot ran beside another slot of its device (contention).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace servescope {
class JsonCursor;
}

namespace servescope::engine {

struct SideBySide {
  std::string model;  // "all" for the total row
  std::uint64_t live_arrivals = 0, predicted_arrivals = 0;
  double live_attainment = 0, predicted_attainment = 0;  // fractions
  double live_goodput_rps = 0, predicted_goodput_rps = 0;
  double live_p99_ms = 0, predicted_p99_ms = 0;
};

struct PredictionDifference {
  double weight = 0;  // how large, for the order: points of the model's requests, or per cent of time
  std::string text;
};

struct PredictionReport {
  SideBySide total;
  std::vector<SideBySide> models;                 // the live run's models, in its order
  std::vector<PredictionDifference> differences;  // largest first
  std::vector<std::string> notes;                 // what could not be compared, and why
};

// `live` and `predicted` are run-result documents (docs/formats.md); their names say which run is
// meant when one is malformed (InputError). A model only one side served is compared against 0.
PredictionReport compare_with_prediction(const nlohmann::json& live, const nlohmann::json& predicted,
                                         const std::string& live_name, const std::string& predicted_name);

// Whether a run-result document was recorded from a live deployment (its partition says "live").
bool is_live_run(const nlohmann::json& run);

// When a run's load arrived, in seconds of its clock, from its arrival series (`timeseries`): a
// live run's bins are whole seconds, so the first and last bins' share of the rate in between
// places the ends within them. nullopt when the run records no arrivals.
struct LoadWindow {
  double from_s = 0, to_s = 0;
  double arrivals = 0;  // all of them, the warm-up's too (the summary counts only the measured)
};
std::optional<LoadWindow> load_window(const JsonCursor& run);

}  // namespace servescope::engine
