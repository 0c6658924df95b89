// Reads the plans the PPipe authors' planner wrote (data/plans/{maf19,maf21,ablation}/*.json in
// the artifact): per model the throughput, SLO and bandwidth, and per pooled pipeline the
// partitions with block range, GPU type, MPS level, batch, GPU count and the latencies the
// planner assumed. Golden tests recompute those latencies from the profiles; the PPipe planner
// tests compare throughputs against them.
#pragma once

#include <string>
#include <vector>

#include "model/profile/model_profile.h"

namespace servescope {

struct ReferencePartition {
  std::string dnn;
  std::string gpu;      // as written in the file ("V100")
  int mps_divisor = 1;  // the file's `mps` + 1
  int batch = 1;
  BlockRange blocks;
  double num_gpu = 0;  // physical GPUs, may be fractional in the file
  double lat_infer_us = 0;
  double lat_trans_us = 0;
  double xput_rps = 0;
};

struct ReferencePipeline {
  double xput_rps = 0;
  std::vector<ReferencePartition> partitions;
};

struct ReferenceModelPlan {
  std::string dnn;
  double xput_rps = 0;
  double slo_us = 0;
  double bw_gbps = 0;
  double runtime_s = -1;  // the authors' solve time, when recorded
  std::vector<std::string> gpu_types;
  std::vector<ReferencePipeline> pipelines;
};

std::vector<ReferenceModelPlan> load_ppipe_reference_plan(const std::string& path);

}  // namespace servescope
