// The candidate pipelines of PPipe's control plane (seed 000 Appendix A; digest §2.1, §2.6): for
// one model, every (GPU-type sequence, cut points, vGPU size per partition, batch) whose latency,
// batch forming included, meets the planning SLO, with each partition's per-vGPU rate (NIC-capped
// when asked). Both solvers of the pooled-pipeline planners choose among these columns: the MILP
// and the exact frontier search. For those planners, not for callers.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/ppipe/pipeline_shapes.h"
#include "engine/ppipe/ppipe_planner.h"

namespace servescope::engine {

struct ColumnPart {
  int type = 0;     // index into the planner's GPU types
  int divisor = 1;  // v: each vGPU is 1/v of a GPU
  BlockRange blocks;
  Duration latency, transfer;
  std::int64_t transfer_bytes = 0;
  double per_vgpu_rps = 0;
};

struct PipelineColumn {
  int model = 0;
  int sequence = 0;  // index into enumerate_type_sequences(types, P)
  int batch = 1;
  std::vector<ColumnPart> parts;
  Duration latency, batch_forming;
};

// Rate of one physical GPU of a partition: its v vGPUs together.
inline double per_gpu_rps(const ColumnPart& part) {
  return part.divisor * part.per_vgpu_rps;
}

// The fewest whole GPUs (at least one) with which a partition carries `rps`. The slack absorbs
// rates that are a GPU count times the per-GPU rate up to rounding.
inline int gpus_to_carry(double rps, const ColumnPart& part) {
  return std::max(1, static_cast<int>(std::ceil(rps / per_gpu_rps(part) * (1 - 1e-12))));
}

// Appends model `model_index`'s columns that meet `planning_slo`. `lambda_rps` is the arrival
// rate behind the batch-forming estimate; empty leaves it out.
void add_pipeline_columns(int model_index, const ModelProfile& profile, const std::vector<PlannerGpuType>& gpus,
                          const std::vector<TypeSequence>& sequences, Duration planning_slo,
                          std::optional<double> lambda_rps, const PpipeOptions& options,
                          std::vector<PipelineColumn>& out);

// Drops every column another column of the same model and type sequence dominates (at least as
// many requests per second on each partition's GPU). The optimum is unchanged; ties keep the
// first column, so the result is deterministic.
std::vector<PipelineColumn> prune_dominated(std::vector<PipelineColumn> columns);

}  // namespace servescope::engine
