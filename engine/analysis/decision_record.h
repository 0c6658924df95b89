// How long a live scheduler's decisions took, as its record keeps them (issue 46; docs/formats.md,
// "scheduler"): from a triggering event (a timer due, a worker's report, a request) to the batch
// order on the worker's socket, summarised as a mean and quantiles at kDistributionLevels. The
// simulator reads it back two ways (controller_cost.h): as lateness, drawn per event from the
// recorded distribution (the default of `predict` and the Prediction tab), or as CPU time charged
// per event on one controller core (`predict --decisions charged`).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/dataplane/controller_cost.h"
#include "engine/metrics/latency_histogram.h"
#include "engine/serving/simulation_spec.h"
#include "model/profile/latency_distribution.h"

namespace servescope::engine {

// The record's `scheduler.dispatch_overhead_us` block: mean, p50, p99, count, and quantiles_us at
// kDistributionLevels.
nlohmann::json decision_record_json(const LatencyHistogram& dispatch_overhead);

// From a live run's record (its `scheduler.dispatch_overhead_us`), or from that block alone (the
// file `bench/live/fidelity.py` keeps of a calibration run), named `name` in errors. nullopt
// where it holds no decisions, or a record from before the quantiles were kept.
std::optional<LatencyDistribution> recorded_decision_lateness(const nlohmann::json& doc, const std::string& name);

// Makes `spec`'s controller draw each timer's and batch end's lateness from `lateness`, seeded by
// the run's seed (so call it once the seed is set); a controller already there keeps its cores
// and cost per event.
void draw_decision_lateness(SimulationSpec& spec, LatencyDistribution lateness);

// The mean decision time of the same, charged per event on one controller core.
std::optional<ControllerCost> recorded_decision_cost(const nlohmann::json& doc, const std::string& name);

}  // namespace servescope::engine
