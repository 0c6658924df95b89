// Runs a scenario's workload through one serving system in the simulator: expands the cluster
// into GPUs, picks the models the workload targets, builds the system's data plane, the
// arrival streams and the recorders, and returns the aggregates. The CLI's `simulate` and
// `goodput`, the GUI and the reproduction scripts all come through here.
#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/baselines/nexus_scheduler.h"
#include "engine/dataplane/app_fanout.h"
#include "engine/glet/glet_data_plane.h"
#include "engine/glet/glet_scenario.h"
#include "engine/glet/glet_serving.h"
#include "engine/metrics/gpu_class_busy.h"
#include "engine/metrics/run_metrics.h"
#include "engine/ppipe/reactive_pool_scheduler.h"
#include "engine/ppipe/reservation_scheduler.h"
#include "engine/sim/simulator.h"
#include "engine/symphony/deferred_scheduler.h"
#include "engine/symphony/subcluster_partitioner.h"
#include "model/scenario/scenario.h"

namespace servescope::engine {

// The systems `simulate` knows; see docs/formats.md ("Simulation results") for each.
std::vector<std::string> simulation_systems();
// The data planes that run a pooled-pipeline plan (SimulationSpec::pipeline_plan): PPipe's
// reservation-based batching and the reactive per-pool baseline.
std::vector<std::string> pipeline_data_planes();
bool is_pipeline_data_plane(const std::string& system);
// "glet": gpu-let's runtime, driven by a glet plan.
bool is_glet_data_plane(const std::string& system);

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
  const PipelinePlan* pipeline_plan = nullptr;
  ReservationSchedulerOptions reservation;
  ReactiveSchedulerOptions reactive;
  // The glet data plane runs this gpu-let plan on glets of its GPU type; load factors are then
  // relative to the rate the plan carries.
  const GletPlan* glet_plan = nullptr;
  GletDataPlaneOptions glet;
  // "glet-serving" plans and re-plans on its own every period (no plan given).
  GletServingOptions glet_serving;
  GletPlannerOptions glet_planner;
  std::string glet_gpu;  // the GPU type to split on a mixed cluster
  // Asking it to stop ends simulate() soon (within some 65,000 events) with Cancelled: a GUI
  // closing or a user pressing Stop does not wait for a long run.
  std::stop_token stop;
};

struct SubclusterSummary {
  std::size_t gpus = 0;
  std::vector<std::string> models;
  double rate_rps = 0;  // offered to its models
};

struct SimulationResult {
  std::string system;
  std::vector<std::string> models;
  std::vector<Duration> model_slo;
  std::vector<std::string> gpus;
  double offered_rate_rps = 0;
  double nominal_capacity_rps = 0;
  Duration duration, warmup;
  std::uint64_t seed = 0;
  double runtime_jitter = 0;
  std::unique_ptr<MetricsCollector> metrics;
  std::vector<TimelineSpan> timeline;
  std::vector<TransferSpan> transfers;
  std::vector<QueueSample> queue_samples;  // with the timeline: each model's queue depth
  std::vector<SpanRequest> span_requests;  // with the timeline: every batch's requests
  std::vector<DropMark> drops;             // with the timeline: every dropped request
  SimulatorStats sim;
  double wall_seconds = 0;
  std::vector<SubclusterSummary> subclusters;  // one entry when the cluster is not split
  std::string partition_status;
  std::string plan_system;                  // the planner behind a pipeline data plane's plan
  std::vector<std::string> gpu_types;       // per GPU (vGPU for pipelines): catalog id
  std::vector<std::string> gpu_shares;      // per GPU: "1", "1/2", …
  std::vector<std::uint32_t> gpu_physical;  // per GPU: index of its physical GPU
  std::vector<Duration> gpu_duty_cycle;     // per GPU: a glet's planned duty cycle (0: none)
  std::vector<std::uint32_t> gpu_server;    // per GPU: its server (an index of server_names)
  std::vector<std::string> server_names;    // the cluster's servers, whose NICs transfers use
  std::uint64_t probes = 0;                 // probe() calls of the reservation data plane
  std::uint64_t dispatches = 0;
  std::vector<Reorganisation> reorganisations;  // glet-serving: when each schedule took over
};

// The scenario's selected workloads resolved into per-model arrival streams and the models'
// profiles on the cluster's GPU type. Throws QueryError with a reason when the scenario cannot
// run (no GPUs, a model without a profile for the GPU type, application targets, …).
struct SimulationSetup {
  std::vector<ScheduledModel> models;
  std::vector<GpuSlot> gpus;
  std::vector<LinkSpeed> servers;      // each server's NIC, indexed by GpuSlot::server
  std::vector<ArrivalStream> streams;  // rates as written in the workloads
  double workload_rate_rps = 0;
  // Application requests (glet only, so far): each arrives as its own model entry, named
  // "app:NAME", and runs its modules as requests of their models (engine/dataplane/app_fanout.h).
  std::vector<AppGraph> apps;
};
SimulationSetup prepare_simulation(const Scenario& scenario, const SimulationSpec& spec);

// The total rate at which every model, sharing the cluster, could run staggered batches sized
// by Symphony's Eqs. (1)–(2): N / Σ_m share_m · ℓ_m(b_m)/b_m. Load factors are relative to it.
double nominal_capacity_rps(const SimulationSetup& setup);

// Which models and GPUs each sub-cluster gets: GPUs in contiguous groups of equal size, models by
// the partitioning MILP balancing their offered rates (heuristic fallback on time-out).
struct SubclusterSplit {
  std::vector<std::vector<std::uint32_t>> gpus, models;  // per sub-cluster, global indices
  PartitionResult partition;
};
SubclusterSplit split_subclusters(const SimulationSetup& setup, const SimulationSpec& spec);

// Everything a run of the scenario through one serving system needs before its first event: the
// setup with the streams scaled to the offered rate, the data plane, how long each batch takes,
// and the result's description (models, GPUs, rate; no metrics yet). The simulator runs it in
// virtual time; the live scheduler (engine/live) runs the same plane against the wall clock.
struct PreparedServing {
  SimulationSetup setup;
  SimulationResult result;
  std::unique_ptr<DataPlane> plane;
  std::optional<ExecutionTimes> times;
  // What the plane refers to, kept at stable addresses.
  std::unique_ptr<PipelineDeployment> pipeline_deployment;
  std::unique_ptr<GletDeployment> glet_deployment;
  std::optional<GletInput> serving_input;
  std::vector<std::uint32_t> serving_physical;
  ReservationScheduler* reservation = nullptr;  // the plane, when it is PPipe's
  GletServing* serving_plane = nullptr;         // the plane, when it is glet-serving
};
PreparedServing prepare_serving(const Scenario& scenario, const SimulationSpec& spec);

// The system's data plane; with spec.subclusters > 1 (or a split given), one per sub-cluster
// behind a PartitionedDataPlane.
std::unique_ptr<DataPlane> make_data_plane(const std::string& system, const SimulationSetup& setup,
                                           const SimulationSpec& spec, const SubclusterSplit* split = nullptr);

// Temporal utilisation per GPU type over every physical GPU of that type in the cluster: each
// (v)GPU's busy time weighted by its share, over the type's GPUs × the measured window (PPipe
// digest §6.4, with the whole class as the denominator); the run's charts use the same definition
// (metrics/gpu_class_busy.h).
std::map<std::string, double> busy_by_gpu_type(const SimulationResult& result);
std::vector<GpuSlotClass> gpu_slot_classes(const SimulationResult& result);

SimulationResult simulate(const Scenario& scenario, const SimulationSpec& spec,
                          const std::function<void(double fraction)>& progress = {});

}  // namespace servescope::engine
