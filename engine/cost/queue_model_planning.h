// Planning each module for the traffic it will get (ours, beyond Piccolo seed 001 and Harpagon
// seed 004; docs/reproduction/cost.md "Planning for Poisson traffic"). The papers' Theorem 1
// plans whole machines at 100 % of their throughput for a smooth stream; under Poisson traffic
// they queue. The queueing model here is the frontend itself: a module's candidate plan runs alone
// in the simulator (cost_simulation.h, the same CostDispatcher the application runs on) under the
// arrivals module_arrivals() gives it, and its share of requests late by the module's budget is
// read off. Closed forms were tried first and over-estimated the simulator's misses 100×: the
// frontend holds a partial batch until its slot frees and runs a backlog as one larger batch, which
// M/D/c-style formulas do not see. Each module gets the least padded rate, on a grid, whose plan
// the model expects to miss at most its target; the application is then re-planned at those
// rates, since budgets move with them. Deterministic: the model's runs are seeded.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/cost/cost_planner.h"
#include "engine/cost/module_arrivals.h"

namespace servescope::engine {

struct QueueModelOptions {
  double target_miss = 0.01;              // per module, unless targets say otherwise
  Duration span = Duration::seconds(60);  // each model run, after a 5 s warm-up
  std::uint64_t seed = 11;                // the model's runs; a check should use others
  double step = 0.05;                     // the padded rate grows by this share of the real rate
  int max_steps = 40;                     // up to 3× the real rate
  int rounds = 3;                         // re-plans of the application at the new rates
  double source_shape = 1;                // the workload's arrival process (1: Poisson)
};

// The share of module m's requests that `candidate` finishes later than the module's budget in
// `plan` when it receives `arrivals` alone.
double modelled_miss(const CostPlan& plan, std::size_t m, const ModulePlan& candidate, const ModuleArrivals& arrivals,
                     const QueueModelOptions& model);

struct QueueModelReport {
  std::vector<double> miss;  // per module: the model's share of late requests in the final plan
  bool held = false;         // every module within its target (else the rounds ran out)
  int rounds = 0;            // re-plans
};

// `problem` planned with `options` (burst_z is ignored), each module sized by the model for at
// most `targets[m]` of late requests (model.target_miss where targets is shorter). The plan
// serves the real rates; the rest is headroom.
CostPlan plan_cost_for_queueing(const CostProblem& problem, const CostPlanOptions& options,
                                const std::vector<double>& targets, const QueueModelOptions& model,
                                QueueModelReport* report = nullptr);

}  // namespace servescope::engine
