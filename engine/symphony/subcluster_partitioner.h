// Symphony's sub-cluster partitioning (seed 002 §4.4, Appendix A; digest §2.9): split the models
// into disjoint sets, one per sub-cluster, balancing request rate and static memory under each
// sub-cluster's memory and dispatcher limits, and optionally bounding the load/unload cost of
// moving away from the current assignment. Solved as the linearised MILP on GLPK within a time
// limit; a greedy-plus-local-search heuristic answers when the solver finds nothing in time,
// and a random-restart solver is the paper's baseline.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/core/time.h"

namespace servescope::engine {

struct PartitionModel {
  std::string name;
  double rate_rps = 0;
  double static_memory = 0;   // weights, any unit consistent with memory_limit
  double dynamic_memory = 0;  // runtime buffer; a sub-cluster reserves its largest
};

struct PartitionProblem {
  std::vector<PartitionModel> models;
  int subclusters = 2;
  double memory_limit = 0;              // S_max; ≤ 0: no limit
  std::optional<double> rate_limit;     // R_max
  double memory_weight = 1;             // w in ΔR + w·ΔS
  std::vector<int> current;             // x': current sub-cluster per model (empty: none)
  double move_cost = 1;                 // c_ij for every load and every unload
  std::optional<double> max_move_cost;  // C_max
};

enum class PartitionStatus { Optimal, Feasible, Heuristic, Infeasible };
std::string to_string(PartitionStatus s);

struct PartitionResult {
  PartitionStatus status = PartitionStatus::Infeasible;
  std::vector<int> assignment;  // sub-cluster per model
  double objective = 0;         // ΔR + w·ΔS
  double rate_spread = 0;       // ΔR
  double memory_spread = 0;     // ΔS
  double move_cost = 0;
  double solve_seconds = 0;
  std::string message;
};

// Objective, limits and move cost of an assignment; nullopt when it breaks a limit.
std::optional<PartitionResult> evaluate_partition(const PartitionProblem& p, const std::vector<int>& assignment);
// (max − min)/mean of per-sub-cluster rate and static memory: the paper's quality metric.
std::pair<double, double> imbalance_factors(const PartitionProblem& p, const std::vector<int>& assignment);

// `node_limit`: branch-and-bound nodes, a bound on the work that makes the answer the same on a
// busy machine as on an idle one; 0: none (the time limit alone, which does not).
PartitionResult solve_partition_milp(const PartitionProblem& p, double time_limit_s = 10, int node_limit = 0);
PartitionResult solve_partition_heuristic(const PartitionProblem& p, double time_limit_s = 1);
PartitionResult solve_partition_random(const PartitionProblem& p, double time_limit_s, std::uint64_t seed);
// The MILP, falling back to the heuristic when the solver returns no solution in time.
PartitionResult solve_partition(const PartitionProblem& p, double time_limit_s = 10, int node_limit = 0);

}  // namespace servescope::engine
