// Runs a cost plan in the discrete-event simulator (Piccolo seed 001 §4, Harpagon seed 004 §3):
// the plan's machines become executors, application requests arrive at the source rate and fan
// out through the DAG (each module receiving its planned rate), and the CostDispatcher serves
// every module. Reports end-to-end SLO attainment, the measured cost (price × busy time) beside
// the planned one, and per-module budget violations and dummy use.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/cost/cost_dispatcher.h"
#include "engine/metrics/run_metrics.h"
#include "model/workload/workload.h"

namespace servescope::engine {

struct CostSimulationOptions {
  Duration duration = Duration::seconds(60);
  Duration warmup = Duration::seconds(5);
  Duration drain = Duration::seconds(10);
  std::uint64_t seed = 1;
  ArrivalProcess arrivals = PoissonArrivals{};
  double load = 1.0;  // multiplies the planned rates
  // Replays these application arrivals instead (the papers' deterministic examples).
  std::vector<Time> arrival_list;
};

struct CostSimulationResult {
  double app_rate_rps = 0;  // application requests offered per second
  ModelRunStats app;        // end-to-end outcomes (attainment against the SLO)
  std::vector<CostModuleStats> modules;
  double planned_cost = 0;
  double measured_cost = 0;  // Σ slot price × busy fraction over the measured window
  std::size_t slots = 0;
  std::vector<CostSlot> slot_list;
  std::vector<double> slot_busy;  // fraction of the window
};

// Throws QueryError for an infeasible plan.
CostSimulationResult simulate_cost_plan(const CostPlan& plan, const CostSimulationOptions& options = {});

}  // namespace servescope::engine
