// A pooled-pipeline plan (PPipe, seed 000 §1.2, digest §1.2): for each model, the pipelines the
// control plane uses; each pipeline is a chain of partitions, each partition a pool of equal
// vGPUs (1/v of a GPU type) running a contiguous block range at the pipeline's batch size.
// NP and DART-r plans (digest §2.8) have the same shape.
#pragma once

#include <string>
#include <vector>

#include "model/core/time.h"
#include "model/profile/model_profile.h"

namespace servescope::engine {

struct PlannedPartition {
  std::string gpu;       // catalog id
  int vgpu_divisor = 1;  // each vGPU is 1/v of a GPU
  BlockRange blocks;
  int vgpus = 0;
  int gpus = 0;                     // ⌈vgpus / v⌉ physical GPUs' worth (whole in our plans; see gpu_placement.h)
  Duration latency;                 // one batch on one vGPU
  Duration transfer;                // shipping this partition's output to the next (0 for the last)
  std::int64_t transfer_bytes = 0;  // that output, for the whole batch (0: the last, or a plan from before it was kept)
  double capacity_rps = 0;          // vgpus × per-vGPU throughput (NIC-capped when the plan says so)
};

struct PlannedPipeline {
  std::string model;
  int batch = 1;
  std::vector<PlannedPartition> partitions;
  Duration latency;         // Σ inference + Σ transfers
  Duration batch_forming;   // E_b, the planner's estimate of the time to gather a batch
  double assigned_rps = 0;  // what the solver gave the pipeline
  double capacity_rps = 0;  // min over its partitions, ≥ assigned
};

struct PlannedModel {
  std::string name;
  Duration slo;           // the data plane's deadline
  Duration planning_slo;  // (1 − margin) × SLO, what the plan was fitted to
  double weight = 1;      // share of the workload (multi-model max-min objective)
  double throughput_rps = 0;
};

// One stage of a lexicographic max-min solve: the normalised throughput it raised the free
// models to, and the models that could go no higher and were held there from then on.
struct PlanSolveStage {
  double level = 0;  // req/s per unit of weight
  std::vector<std::string> fixed_models;
  double seconds = 0;
};

struct PlanSolveStats {
  std::string status;  // optimal, feasible (time limit), heuristic, infeasible
  bool proven_optimal = false;
  std::string solver;          // frontier, milp; empty in plans written before there was a choice
  std::string objective_kind;  // lex-max-min, max-min, max-throughput (one model)
  double objective = 0;        // the first stage's: max-min z, or one model's throughput
  double best_bound = 0;
  double gap = 0;
  double seconds = 0;
  int enumerated_columns = 0;  // candidate pipeline configurations within the SLO
  int columns = 0;             // those left after dropping dominated ones: what the MILP chose from
  int variables = 0;
  int rows = 0;
  std::vector<PlanSolveStage> stages;  // lexicographic max-min only
};

struct PipelinePlan {
  std::string system;  // ppipe, np, dart-r
  std::vector<PlannedModel> models;
  std::vector<PlannedPipeline> pipelines;
  PlanSolveStats solve;
  std::vector<std::string> notes;  // decisions a user should know about (idle GPU types, …)

  double total_throughput_rps() const;
  // Physical GPUs of each type the plan occupies.
  int gpus_used(const std::string& gpu) const;
};

}  // namespace servescope::engine
