// What a run of a scenario through one serving system is asked to do: which system and
// workloads, at what rate, for how long, with which seed, and each system's own options. The
// simulator and the live scheduler take the same spec (engine/systems/scenario_simulation.h).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/baselines/nexus_scheduler.h"
#include "engine/glet/glet_baselines.h"
#include "engine/glet/glet_data_plane.h"
#include "engine/glet/glet_serving.h"
#include "engine/ppipe/pipeline_plan.h"
#include "engine/ppipe/reactive_pool_scheduler.h"
#include "engine/ppipe/reservation_scheduler.h"
#include "engine/symphony/deferred_scheduler.h"
#include "model/core/time.h"

namespace servescope::engine {

struct SimulationSpec {
  std::string system = "symphony";
  std::vector<std::string> workloads;  // names; empty: every workload
  std::string base_dir;                // where relative trace paths start (the scenario's folder)
  std::optional<double> rate_rps;      // total rate, scaling the workloads' rates proportionally
  std::optional<double> load_factor;   // rate = factor × nominal_capacity_rps()
  Duration duration = Duration::seconds(60);
  Duration warmup = Duration::seconds(5);
  Duration drain = Duration::seconds(10);  // after arrivals stop, to let queued work finish
  std::uint64_t seed = 1;
  double runtime_jitter = 0;  // each batch runs its profiled time × U[1 − j, 1 + j] (Simulator)
  bool timeline = false;      // keep every batch as a timeline span
  Duration utilisation_bin = Duration::milliseconds(0);  // 0: about 200 bins over the run
  DeferredOptions deferred;                              // policies of the Algorithm-1 family
  std::optional<BatchRule> batch_rule;                   // overrides the system's default
  double timeout_fraction_of_slo = 0.1;                  // the timeout system's k
  NexusOptions nexus;                                    // epoch, frontends
  std::ostream* request_log = nullptr;                   // per-request CSV rows (sim/request_log.h)
  int subclusters = 1;                                   // Symphony §4.4: split models and GPUs
  double partition_time_limit_s = 10;                    // for the sub-cluster MILP
  // Pipeline data planes run this plan; load factors are then relative to its throughput.
  std::shared_ptr<const PipelinePlan> pipeline_plan;
  ReservationSchedulerOptions reservation;
  ReactiveSchedulerOptions reactive;
  // The glet data plane runs this gpu-let plan on glets of its GPU type; load factors are then
  // relative to the rate the plan carries.
  std::shared_ptr<const GletPlan> glet_plan;
  GletDataPlaneOptions glet;
  // "glet-serving" plans and re-plans on its own every period (no plan given).
  GletServingOptions glet_serving;
  GletPlannerOptions glet_planner;
  std::string glet_gpu;  // the GPU type to split on a mixed cluster
  // Asking it to stop ends simulate() soon (within some 65,000 events) with Cancelled: a GUI
  // closing or a user pressing Stop does not wait for a long run.
  std::stop_token stop;
};

}  // namespace servescope::engine
