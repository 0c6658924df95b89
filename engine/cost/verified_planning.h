// Planning checked by simulation: the papers' latency model assumes smooth streams, so a plan
// for bursty (Poisson) traffic gets burst headroom, is run in the simulator at its planned rates,
// and the modules that missed their budgets get more headroom until the plan holds its SLO
// attainment target. Deterministic: the simulation is seeded.
#pragma once

#include "engine/cost/cost_simulation.h"

namespace servescope::engine {

struct VerifiedPlanOptions {
  double target = 0.99;  // SLO attainment the plan must hold
  // The check itself must beat the target by this much: one seeded run samples the arrivals, and
  // a plan that just makes 99 % on it can miss on another seed (measured: 0.7 points covers every
  // random plan of docs/reproduction/cost.md on three other seeds).
  double margin = 0.007;
  double start_z = 2.33;  // first burst headroom (CostPlanOptions::burst_z)
  double step = 1.5;      // a module that missed gets its z multiplied by this
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
