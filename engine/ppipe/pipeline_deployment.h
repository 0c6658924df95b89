// A pooled-pipeline plan placed on a real cluster (PPipe, seed 000 §5; digest §5.1 "node
// layout"): each partition takes MPS shares of physical GPUs of its type (gpu_placement.h: by
// NIC load, shares left by other partitions first) as its vGPUs, which sit side by side and
// share their server's NIC (network_layout.h can draw the NICs otherwise). What the data planes
// dispatch to and what the simulator times. GPUs the plan leaves unused stay in the list, idle,
// so utilisation can be measured over the whole cluster.
#pragma once

#include <string>
#include <vector>

#include "engine/dataplane/batch_latency.h"
#include "engine/dataplane/data_plane.h"
#include "engine/dataplane/execution_times.h"
#include "engine/dataplane/network_links.h"
#include "engine/ppipe/gpu_placement.h"
#include "engine/ppipe/pipeline_plan.h"
#include "model/profile/model_profile.h"

namespace servescope::engine {

// A physical GPU of the cluster, as the simulator set-up lists them.
struct PhysicalGpu {
  std::string name;
  std::string gpu_type;
  std::uint32_t server = 0;
};

struct DeployedStage {
  BlockRange blocks;
  std::vector<std::uint32_t> pool;       // vGPU slots, in placement order
  BatchLatency latency;                  // on the pool's GPU type and share, up to the planned batch
  std::int64_t in_bytes_per_sample = 0;  // the feature map entering this stage (0 for the first)
  std::uint32_t kernel = 0;              // the model's executable for this block range
};

struct DeployedPipeline {
  std::uint32_t model = 0;  // index into PipelineDeployment::models
  int planned_batch = 1;
  double assigned_rps = 0;
  std::vector<DeployedStage> stages;
};

struct PipelineDeployment {
  std::vector<std::string> models;           // the data plane's model indices
  std::vector<GpuSlot> slots;                // every vGPU of the plan, then the idle GPUs
  std::vector<std::uint32_t> slot_physical;  // physical GPU index of each slot
  std::vector<PhysicalGpu> physical;
  std::vector<LinkSpeed> servers;
  std::vector<DeployedPipeline> pipelines;
  std::vector<std::vector<std::uint32_t>> model_pipelines;  // per model, its pipelines
  std::vector<std::vector<BlockRange>> kernels;             // per model, its kernels' blocks
  // The NIC each slot sends and receives through, and the NICs: by default each server's
  // (empty: slot s uses servers[slots[s].server]); network_layout.h can draw them otherwise.
  std::vector<std::uint32_t> slot_nic;
  std::vector<LinkSpeed> nics;

  std::uint32_t nic_of(std::uint32_t slot) const { return slot_nic.empty() ? slots[slot].server : slot_nic[slot]; }
  std::size_t nic_count() const { return nics.empty() ? servers.size() : nics.size(); }
  const LinkSpeed& nic(std::uint32_t n) const { return nics.empty() ? servers[n] : nics[n]; }
  // The links a simulator times this deployment's transfers on.
  NetworkLinks network_links() const;

  // Moving `bytes` from slot `from` to slot `to` over the slower of the sender's uplink and the
  // receiver's downlink; 0 between slots of one server only when `local_free`.
  Duration transfer_time(std::uint32_t from, std::uint32_t to, std::int64_t bytes, bool local_free = false) const;
  // What the simulator needs to time every kernel on the slots it is sent to.
  ExecutionTimes execution_times(const ProfileSet& profiles) const;
};

// Places `plan` on `gpus`. `models` fixes the data plane's model order (the workload's); a plan
// model outside it is an error, and so is a workload model the plan does not serve (it would
// have nowhere to go). Throws QueryError when the plan needs more GPUs of a type than the
// cluster has or a profile lacks a partition's GPU type, share or batch.
PipelineDeployment deploy_pipeline_plan(const PipelinePlan& plan, const std::vector<std::string>& models,
                                        const std::vector<PhysicalGpu>& gpus, const std::vector<LinkSpeed>& servers,
                                        const ProfileSet& profiles, GpuPlacementRule rule = GpuPlacementRule::NicLoad);

}  // namespace servescope::engine
