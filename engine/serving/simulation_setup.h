// The part of a run every serving system shares: the scenario's selected workloads resolved into
// per-model arrival streams, the models' batch timings on the cluster's GPU type, the cluster's
// GPUs and NICs, and the applications' DAGs. What a system may be given (several GPU types,
// application workloads, a plan) comes from its DataPlaneTraits (serving_system.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/dataplane/app_fanout.h"
#include "engine/dataplane/data_plane.h"
#include "engine/dataplane/network_links.h"
#include "engine/dataplane/scheduled_model.h"
#include "engine/serving/serving_system.h"
#include "engine/serving/simulation_spec.h"
#include "engine/sim/arrival_source.h"
#include "model/scenario/scenario.h"

namespace servescope::engine {

// Throws QueryError with a reason when the scenario cannot run on that system (no GPUs, a model
// without a profile for the GPU type, application targets, no plan for a system that runs one, …).
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
SimulationSetup prepare_simulation(const Scenario& scenario, const SimulationSpec& spec, const DataPlaneTraits& system);

// The servers' NICs with each GPU slot on its server: the links the simulator moves feature maps
// over, and the time a live scheduler expects a transfer to take.
NetworkLinks network_of(const SimulationSetup& setup);

// Per data-plane model: its name, and its profile in the scenario (null for an application's own
// requests, "app:NAME").
std::vector<std::string> model_names(const SimulationSetup& setup);
std::vector<const ModelProfile*> model_profiles(const Scenario& scenario, const SimulationSetup& setup);

// GPU time one request of `model` costs when n GPUs run it in staggered batches (Symphony's
// Eqs. 1–2): the largest batch within SLO·n/(n+1), its latency per request.
double gpu_seconds_per_request(const ScheduledModel& model, std::int64_t n);

// The total rate at which every model, sharing the cluster, could run staggered batches sized
// by Symphony's Eqs. (1)–(2): N / Σ_m share_m · ℓ_m(b_m)/b_m. Load factors are relative to it
// for the systems that schedule whole GPUs without a plan.
double nominal_capacity_rps(const SimulationSetup& setup);

}  // namespace servescope::engine
