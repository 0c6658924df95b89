// PPipe's offline pre-partitioning (seed 000 §5.1; digest §3): cut a DNN's layer list into N
// contiguous blocks that the planner then combines into partitions. The paper's greedy rule
// makes blocks of roughly equal runtime; the artifact's variant minimises the bytes crossing the
// cuts while every block's runtime share stays within bounds on every GPU type.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace servescope::engine {

// Block boundaries: [0, b1, …, L], N + 1 entries, strictly increasing.
using BlockBoundaries = std::vector<int>;

// Greedy equal-runtime grouping (digest §3.3): target = remaining runtime / remaining blocks;
// a block takes layers while that brings its sum strictly closer to the target, at least one,
// leaving one for every later block; the last block takes the rest. Throws QueryError when there
// are fewer layers than blocks or a runtime is negative.
BlockBoundaries greedy_prepartition(const std::vector<double>& layer_runtime, int blocks);

struct MinCutOptions {
  // (lower, upper) multiples of 1/N a block's runtime share must lie within on every GPU type,
  // tried in order until one is feasible (the artifact's relaxation ladder).
  std::vector<std::pair<double, double>> bounds = {{0.7, 1.3}, {0.5, 1.5}, {0.5, 2.0}, {0.5, 2.5},
                                                   {0.5, 3.0}, {0.5, 3.5}, {0.5, 4.0}, {0.4, 4.0}};
};

struct MinCutPartition {
  BlockBoundaries boundaries;
  std::int64_t cut_bytes = 0;        // Σ over the N − 1 cuts
  std::pair<double, double> bounds;  // the rung that was feasible
};

// Bytes-minimising variant (digest §3.2), solved exactly by dynamic programming over cut
// positions. layer_runtime[k][l] is layer l's runtime on GPU type k; live_bytes[j] (0 < j < L)
// is every tensor live across a cut before layer j. Throws QueryError when no rung is feasible.
MinCutPartition min_cut_prepartition(const std::vector<std::vector<double>>& layer_runtime,
                                     const std::vector<std::int64_t>& live_bytes, int blocks,
                                     const MinCutOptions& options = {});

}  // namespace servescope::engine
