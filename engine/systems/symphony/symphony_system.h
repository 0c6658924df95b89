// Symphony and the baselines that schedule whole GPUs of one type without a plan (seed 002):
// Symphony's deferred batch scheduling and the eager / timeout / latest / Clockwork variants of
// its Algorithm-1 family, Shepherd and Nexus; each on the whole cluster or, with sub-clusters
// (§4.4), one scheduler per part behind a PartitionedDataPlane.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/serving/serving_system.h"
#include "engine/serving/simulation_setup.h"
#include "engine/symphony/subcluster_partitioner.h"

namespace servescope::engine {

std::unique_ptr<ServingFamily> symphony_family();

// Which models and GPUs each sub-cluster gets: GPUs in contiguous groups of equal size, models by
// the partitioning MILP balancing their offered rates (heuristic fallback on time-out).
struct SubclusterSplit {
  std::vector<std::vector<std::uint32_t>> gpus, models;  // per sub-cluster, global indices
  PartitionResult partition;
};
SubclusterSplit split_subclusters(const SimulationSetup& setup, const SimulationSpec& spec);

// The system's data plane; with spec.subclusters > 1 (or a split given), one per sub-cluster
// behind a PartitionedDataPlane.
std::unique_ptr<DataPlane> make_data_plane(const std::string& system, const SimulationSetup& setup,
                                           const SimulationSpec& spec, const SubclusterSplit* split = nullptr);

}  // namespace servescope::engine
