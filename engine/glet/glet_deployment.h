// A gpu-let plan placed on a cluster (seed 003 §4.6, §5.2): every non-free glet becomes one slot
// the data plane dispatches to (an MPS process of size p % on its physical GPU), with the models
// it hosts, their batches, rates and duty cycle, and the slot of the other glet on the same GPU
// (whose running batches slow it down).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/dataplane/data_plane.h"
#include "engine/dataplane/execution_times.h"
#include "engine/glet/elastic_partitioning.h"
#include "model/profile/model_profile.h"

namespace servescope::engine {

struct HostedModel {
  std::uint32_t model = 0;  // the data plane's model index
  int batch = 1;
  double rate_rps = 0;  // what this glet is planned to carry: the routing weight
  Duration latency;     // planned effective latency of a batch (slowdown, safety factor)
  // Expected run time of a batch of k + 1: the profile at the glet's size × the plan's slowdown,
  // without the planner's safety factor. For drop and catch-up decisions; empty without profiles.
  std::vector<Duration> latency_by_batch;
  Duration expected(int size) const {
    return latency_by_batch.empty() ? latency
                                    : latency_by_batch[static_cast<std::size_t>(
                                          std::clamp(size, 1, static_cast<int>(latency_by_batch.size())) - 1)];
  }
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
// GPU type are taken in order; `profiles`, when given, per data-plane model, fill in each hosted
// model's latency by batch. Throws QueryError when the cluster has fewer such GPUs than the plan
// uses.
GletDeployment deploy_glet_plan(const GletPlan& plan, const std::vector<std::string>& models,
                                const std::vector<GpuSlot>& gpus,
                                const std::vector<const ModelProfile*>& profiles = {});

// For schedules that change while serving (GletServing): `slots` come in pairs, two per physical
// GPU, and the plan's GPU i takes slots 2i and 2i + 1 (its first and second glet), whatever it
// splits them into; `physical` is each slot's GPU index. A GPU the plan does not reach stays
// whole and idle. Throws QueryError when the plan has more GPUs than pairs.
GletDeployment deploy_glet_plan_paired(const GletPlan& plan, const std::vector<std::string>& models,
                                       const std::vector<GpuSlot>& slots, const std::vector<std::uint32_t>& physical,
                                       const std::vector<const ModelProfile*>& profiles);

}  // namespace servescope::engine
