// What a live scheduler's record keeps of its own loop (issue 46; docs/formats.md, "scheduler"),
// for the simulator to be as late as the loop was:
//  - its decisions, from a triggering event (a timer due, a worker's report, a request) to the
//    batch order on the worker's socket. Read back as lateness, drawn per event (the default of
//    `predict` and the Prediction tab), or as CPU time charged per event on one controller core
//    (`predict --decisions charged`; controller_cost.h);
//  - its hops: a batch's order and report on their way, a feature map beyond its link's time,
//    drawn per batch and transfer (engine/sim/live_hops.h).
// Each is summarised as a mean and quantiles at kDistributionLevels.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/dataplane/controller_cost.h"
#include "engine/metrics/latency_histogram.h"
#include "engine/serving/simulation_spec.h"
#include "model/profile/latency_distribution.h"

namespace servescope::engine {

// Where a live scheduler's record keeps what its loop measured (docs/formats.md, "scheduler"):
// the decisions, and the hops the simulator otherwise leaves out (engine/sim/live_hops.h).
inline constexpr const char* kDecisions = "dispatch_overhead_us";
inline constexpr const char* kBatchHops = "batch_hop_us";
inline constexpr const char* kTransferOverheads = "transfer_overhead_us";

// One of those blocks: mean, p50, p99, count, and quantiles_us at kDistributionLevels.
nlohmann::json histogram_record_json(const LatencyHistogram& histogram);

// From a live run's record (its `scheduler.dispatch_overhead_us`), its `scheduler` object (the file
// `bench/live/fidelity.py` keeps of a recorded run), or that block alone, named `name` in errors.
// nullopt where it holds no decisions, or a record from before the quantiles were kept.
std::optional<LatencyDistribution> recorded_decision_lateness(const nlohmann::json& doc, const std::string& name);

// Makes `spec`'s controller draw each timer's and batch end's lateness from `lateness`, seeded by
// the run's seed (so call it once the seed is set); a controller already there keeps its cores
// and cost per event.
void draw_decision_lateness(SimulationSpec& spec, LatencyDistribution lateness);

// From a live run's record, or its `scheduler` object: the hops it measured, each empty where it
// holds none (a record from before they were kept, a run without transfers).
LiveHops recorded_live_hops(const nlohmann::json& doc, const std::string& name);

// Makes `spec`'s simulator draw those hops, seeded by the run's seed (so call it once the seed is
// set).
void draw_live_hops(SimulationSpec& spec, LiveHops hops);

// The mean decision time of the same, charged per event on one controller core.
std::optional<ControllerCost> recorded_decision_cost(const nlohmann::json& doc, const std::string& name);

}  // namespace servescope::engine
