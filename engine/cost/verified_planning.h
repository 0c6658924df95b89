// Planning checked by simulation: the papers' latency model assumes smooth streams, so a plan
// for bursty (Poisson) traffic gets burst headroom, is run in the simulator at its planned rates,
// and the modules that missed their budgets get more headroom until the plan holds its SLO
// attainment target. Deterministic: the simulation is seeded.
#pragma once

#include "engine/cost/cost_simulation.h"
#include "engine/cost/queue_model_planning.h"

namespace servescope::engine {

// Where the first plan's headroom comes from: the queueing model (queue_model_planning.h), or
// the count formula T + z·sqrt(T·B/τ) from start_z (CostPlanOptions::burst_z).
enum class HeadroomModel { Queueing, Count };

struct VerifiedPlanOptions {
  HeadroomModel headroom = HeadroomModel::Queueing;
  // The queueing model; a module that missed gets its target divided by `tighten`. Its source
  // shape is taken from simulation.arrivals. After `model_rounds` rounds that miss, the count
  // formula takes over from start_z: on 1,200 random workloads the model's plans failed their
  // check to the end on 1 (1 % target) and 6 (0.5 %), the count formula's on none.
  QueueModelOptions model;
  double tighten = 4;
  int model_rounds = 3;
  double target = 0.99;  // SLO attainment the plan must hold
  // The check itself must beat the target by this much: one seeded run samples the arrivals, and
  // a plan that just makes 99 % on it can miss on another seed (measured: 0.7 points covers every
  // random plan of docs/reproduction/cost.md on three other seeds).
  double margin = 0.007;
  double start_z = 2.33;  // first burst headroom of the count formula (CostPlanOptions::burst_z)
  double step = 1.5;      // with the count formula, a module that missed gets its z multiplied by this
  int max_rounds = 8;
  // Runs per check, on seeds simulation.seed, +1, …; the check holds when the worst one does. One
  // run passed a plan at 99.8 % that made 98.75 % on another seed (the pairwise exchange's plans are
  // tighter; docs/reproduction/cost.md "Simulated SLO attainment"); two caught it.
  int runs = 2;
  CostSimulationOptions simulation;  // arrivals, duration, first seed of the check
};

struct VerifiedPlan {
  CostPlan plan;
  double attainment = 0;       // of the last check: its worst run
  std::uint64_t requests = 0;  // application requests the last check measured, over its runs
  int rounds = 0;
  bool met = false;
};

VerifiedPlan plan_cost_verified(const CostProblem& problem, CostPlanOptions options, const VerifiedPlanOptions& verify);

}  // namespace servescope::engine
