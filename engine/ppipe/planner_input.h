// What PPipe's planners plan for (seed 000 §4, digest §2.4): the cluster's GPU types with their
// counts and NICs, and the models with their block profiles, SLOs and weights. Apart from the
// planners so that the tests' independent plan checker reads the same input without the
// algorithm.
#pragma once

#include <string>
#include <vector>

#include "model/cluster/cluster.h"
#include "model/core/time.h"
#include "model/profile/contention_model.h"
#include "model/profile/model_profile.h"

namespace servescope::engine {

// One GPU type of the cluster as the planner sees it.
struct PlannerGpuType {
  std::string gpu;          // catalog id
  int count = 0;            // N_k physical GPUs
  int gpus_per_server = 1;  // s_k: GPUs sharing one node NIC (the largest server of this type)
  double nic_gbps = 10;     // the slowest NIC direction of this type's servers
  // How its vGPUs slow each other when they run at once, as profiled or calibrated (issue 46;
  // none measured: ×1, the paper's assumption).
  ContentionModel contention{};
};

// A vGPU's latency for `alone` with every other vGPU of its GPU running beside it: a plan's
// capacity has all v vGPUs of a GPU split 1/v busy at once, so each runs at the measured
// contention for v slots of that share (PPipe's profiles, measured one vGPU at a time, do not
// see it; on a CPU two slots of resnet18 ran ×1.07 to ×1.69 slower beside each other).
Duration with_company(const PlannerGpuType& type, int divisor, int batch, Duration alone);
// Groups a cluster's GPUs by type, in order of first appearance.
std::vector<PlannerGpuType> planner_gpu_types(const Cluster& cluster);

struct PlannerModel {
  const ModelProfile* profile = nullptr;  // form "blocks" (a whole-model table counts as one block)
  Duration slo;
  double weight = 1;  // share of the requests, for the max-min objective
};

}  // namespace servescope::engine
