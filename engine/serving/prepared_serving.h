// Everything a run of a scenario through one serving system needs before its first event: the
// setup with the streams scaled to the offered rate, the data plane, how long each batch takes,
// and the result's description (models, GPUs, rate; no metrics yet). The simulator runs it in
// virtual time; the live scheduler (engine/live) runs the same plane against the wall clock.
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "engine/dataplane/data_plane.h"
#include "engine/dataplane/execution_times.h"
#include "engine/serving/simulation_result.h"
#include "engine/serving/simulation_setup.h"
#include "engine/sim/simulator.h"
#include "engine/sim/slot_contention.h"

namespace servescope::engine {

struct PipelineDeployment;

struct PreparedServing {
  SimulationSetup setup;
  SimulationResult result;
  // What the plane refers to (a deployment, the rescheduler's input), kept at a stable address
  // for the plane's lifetime: declared before the plane, so it is destroyed after it.
  std::shared_ptr<const void> state;
  std::unique_ptr<DataPlane> plane;
  std::optional<ExecutionTimes> times;
  // Where a pipeline plan's stages run, for a live scheduler that hands batches on between
  // workers; null for other systems. Points into `state`.
  const PipelineDeployment* pipeline_deployment = nullptr;
  // How much slower a batch runs for what runs beside it on its GPU (glets sharing one by MPS,
  // seed 003 §3.4); empty: never slower. Only the simulator applies it.
  std::function<double(const Simulator& sim, std::uint32_t gpu, const Batch& batch)> slowdown;
  // How slots of one device slow each other, where the profiles measured it and the family has no
  // slowdown of its own (Simulator::set_contention); null: slots run as if alone.
  std::shared_ptr<const SlotContention> contention;
  // Per slot, how long its device's slow and fast spells last where batch times are drawn
  // (spell_draws.h); empty or zero: each batch drawn on its own.
  std::vector<Duration> spells;
  // The links transfers are timed on when they are not the servers' NICs (a pipeline plan's
  // network layout); empty: one uplink and one downlink per server (network_of).
  std::optional<NetworkLinks> network;
  // After a run: copies the plane's own counters (probes, reorganisations) into the result.
  std::function<void(SimulationResult& result)> collect;
};

// The seed of the generator that draws batch times from measured distributions
// (SimulationResult::sampled_runtime), from the run's: the simulator and the live scheduler seed
// theirs alike, apart from the arrivals' and the jitter's.
inline std::uint64_t runtime_sampling_seed(std::uint64_t seed) {
  return seed ^ 0x5851f42d4c957f2dULL;
}

// For systems that serve the whole cluster as one part: the result's one sub-cluster, every
// (v)GPU and model at the offered rate, "not split".
void describe_unsplit(PreparedServing& prepared);

}  // namespace servescope::engine
