// PPipe's control plane (seed 000 §4, Appendix A; digest §2.4–§2.6): choose pooled pipelines —
// GPU-type sequence, cut points, batch size, vGPU size and pool sizes — that maximise throughput
// (or, for several models, the minimum weighted throughput) under each model's latency SLO and
// the cluster's GPUs. Solved on GLPK in the column-enumeration form of digest §2.6 with every
// fix of §2.5 (pipeline-used binaries, linearised min, whole GPUs per partition, NIC cap, an
// optional batch-forming term). NP and DART-r (digest §2.8) are built with the same machinery.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "engine/ppipe/pipeline_plan.h"
#include "engine/ppipe/planner_input.h"

namespace servescope::engine {

// What the multi-model plan maximises (digest §2.4 and docs/reproduction/ppipe.md "Lexicographic
// max-min"). The paper stops at the largest smallest normalised throughput z = min_m x_m / w_m,
// which can leave most of a cluster idle; lexicographic max-min keeps that z and then raises the
// next-smallest models in turn until no model can gain.
enum class PpipeObjective { LexMaxMin, MaxMin };
// The frontier search is exact and fast up to three GPU types (docs/reproduction/ppipe.md
// "Frontier search"); Auto uses it where it applies and the MILP elsewhere.
enum class PpipeSolver { Auto, Frontier, Milp };

struct PpipeOptions {
  int max_partitions = 2;                        // P, 1–3
  double slo_margin = 0.4;                       // μ: plan against (1 − μ)·SLO
  std::vector<int> vgpu_divisors;                // allowed v; empty: every profiled one
  std::vector<int> batch_sizes;                  // allowed b; empty: every profiled one
  bool several_configs_per_sequence = false;     // drop the one-column-per-type-sequence rule
  bool nic_cap = true;                           // cap a vGPU's throughput by its share of the node NIC
  bool batch_forming = true;                     // add E_b = β(b−1)/λ̂ to each pipeline's latency
  double batch_build_factor = 1.3;               // β
  std::optional<double> batch_forming_rate_rps;  // λ̂; empty: the NP plan's throughput per model
  PpipeObjective objective = PpipeObjective::LexMaxMin;
  PpipeSolver solver = PpipeSolver::Auto;
  double time_limit_s = 60;  // for the whole solve, every stage included
  double mip_gap = 1e-6;
  const std::atomic<bool>* cancel = nullptr;
};

// The SLO the MILP fits latencies to: SLO − round(μ·SLO) µs (digest §2.2); the data plane keeps
// the full SLO.
Duration planning_slo(Duration slo, double margin);

std::string to_string(PpipeObjective objective);
std::string to_string(PpipeSolver solver);

// Throws QueryError when a model has no profile for a GPU type in the cluster that it could
// use, when no model can meet its SLO anywhere, or on options out of range.
PipelinePlan plan_ppipe(const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
                        const PpipeOptions& options = {});
// No partitioning: every GPU type runs whole models at the largest batch within (1 − μ)·SLO.
PipelinePlan plan_np(const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
                     const PpipeOptions& options = {});
// The options of the NP plan behind λ̂ and DART-r's GPU split (digest §2.2, §2.8): the paper's
// max-min, whatever the user's plan maximises, so that those estimates stay the paper's.
PpipeOptions max_min_np_options(PpipeOptions options);
// Replicated DART: min(N_H, N_L) pairs of one high- and one low-class GPU, each running the best
// plan for the pair; the majority class's leftover GPUs run whole models alone. Two GPU types.
// Several models split the GPUs as the NP plan does, share the GPUs it leaves idle evenly, and
// each runs DART-r on its share; the objective reported is min_m throughput_m / weight_m.
PipelinePlan plan_dart_r(const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
                         const PpipeOptions& options = {});

}  // namespace servescope::engine
