// The candidate pooled pipelines of PPipe's control plane (seed 000 §4.2, digest §2.1): every
// sequence of GPU types of length 1..P, consecutive repeats included (T4 → T4 with different
// vGPU sizes is a real plan). |L| = Σ_{d=1..P} K^d.
#pragma once

#include <string>
#include <vector>

namespace servescope::engine {

using TypeSequence = std::vector<int>;  // indices into the GPU types

// In order of length, then lexicographic by type index.
std::vector<TypeSequence> enumerate_type_sequences(int gpu_types, int max_partitions);

// Every way to cut blocks [0, n) into `parts` contiguous non-empty ranges: the inner cut points.
std::vector<std::vector<int>> enumerate_cuts(int blocks, int parts);

}  // namespace servescope::engine
