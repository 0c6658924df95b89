// What PPipe's planners plan for (seed 000 §4, digest §2.4): the cluster's GPU types with their
// counts and NICs, and the models with their block profiles, SLOs and weights. Apart from the
// planners so that the tests' independent plan checker reads the same input without the
// algorithm.
#pragma once

#include <string>
#include <vector>

#include "model/cluster/cluster.h"
#include "model/core/time.h"
#include "model/profile/model_profile.h"

namespace servescope::engine {

// One GPU type of the cluster as the planner sees it.
struct PlannerGpuType {
  std::string gpu;          // catalog id
  int count = 0;            // N_k physical GPUs
  int gpus_per_server = 1;  // s_k: GPUs sharing one node NIC (the largest server of this type)
  double nic_gbps = 10;     // the slowest NIC direction of this type's servers
};
// Groups a cluster's GPUs by type, in order of first appearance.
std::vector<PlannerGpuType> planner_gpu_types(const Cluster& cluster);

struct PlannerModel {
  const ModelProfile* profile = nullptr;  // form "blocks" (a whole-model table counts as one block)
  Duration slo;
  double weight = 1;  // share of the requests, for the max-min objective
};

}  // namespace servescope::engine
