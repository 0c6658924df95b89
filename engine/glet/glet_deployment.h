// A gpu-let plan placed on a cluster (seed 003 §4.6, §5.2): every non-free glet becomes one slot
// the data plane dispatches to (an MPS process of size p % on its physical GPU), with the models
// it hosts, their batches, rates and duty cycle, and the slot of the other glet on the same GPU
// (whose running batches slow it down).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/dataplane/data_plane.h"
#include "engine/glet/elastic_partitioning.h"
#include "engine/sim/simulator.h"
#include "model/profile/model_profile.h"

namespace servescope::engine {

struct HostedModel {
  std::uint32_t model = 0;  // the data plane's model index
  int batch = 1;
  double rate_rps = 0;  // what this glet is planned to carry: the routing weight
  Duration latency;     // planned effective latency of a batch
};

struct GletSlot {
  int size_percent = 100;
  Duration duty_cycle;
  std::vector<HostedModel> hosted;
  std::optional<std::uint32_t> neighbour;  // the other glet's slot on the same GPU, if it hosts anything
};

struct GletDeployment {
  std::vector<GpuSlot> slots;                // one per non-free glet, in plan order
  std::vector<std::uint32_t> slot_physical;  // index of the slot's physical GPU among the cluster's
  std::vector<GletSlot> glets;               // per slot
  std::vector<std::string> unplanned;        // models the workload sends that the plan does not serve
  // Solo latency per (model, slot size), for the simulator; interference comes on top.
  ExecutionTimes execution_times(const std::vector<const ModelProfile*>& profiles) const;
};

// `models` are the data plane's model names; `gpus` the cluster's GPUs, of which the plan's
// GPU type are taken in order. Throws QueryError when the cluster has fewer such GPUs than the
// plan uses.
GletDeployment deploy_glet_plan(const GletPlan& plan, const std::vector<std::string>& models,
                                const std::vector<GpuSlot>& gpus);

}  // namespace servescope::engine
