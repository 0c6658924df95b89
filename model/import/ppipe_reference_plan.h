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
  double margin_us = 0;   // `hist_adjustment`: round(μ·SLO), taken off the SLO while planning
  int max_partitions = 1;
  std::vector<std::string> gpu_types;
  std::vector<int> gpus_per_server;  // per GPU type
  std::vector<int> mps_levels;       // per GPU type: vGPU divisors 1..k were allowed
  std::vector<ReferencePipeline> pipelines;
};

std::vector<ReferenceModelPlan> load_ppipe_reference_plan(const std::string& path);

// What a plan file's name says and its contents do not:
// `{models}_{w1-w2-w3}_{TYPE1-TYPE2}_{N1-N2}_bw-gbps-{B}_sla-multiplier-{S}_{system}.json`
// (no weights for single-model files). System: `bl` (NP), `v4` (PPipe) or `dart-r`.
struct ReferencePlanName {
  std::vector<double> weights;  // empty for one model
  std::vector<int> gpu_counts;  // per GPU type, in the file's order
  std::string system;
};
// Throws InputError when the name does not have that shape.
ReferencePlanName parse_ppipe_reference_plan_name(const std::string& filename);

}  // namespace servescope
