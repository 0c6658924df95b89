// When each GPU of a sub-cluster is next free, with the two questions Symphony's RankThread
// asks (seed 002 §2.6): the lowest-id GPU free by time x (the consolidating policy that leaves
// high-id GPUs idle for the autoscaler), and the earliest-free GPU (lowest id on ties). A
// segment tree of minima answers both in O(log G).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/dataplane/request.h"

namespace servescope::engine {

class GpuFreeTree {
 public:
  explicit GpuFreeTree(std::size_t gpus = 0, Time initial = Time());

  std::size_t size() const { return n_; }
  Time free_at(std::size_t gpu) const { return tree_[leaf_ + gpu]; }
  void set(std::size_t gpu, Time t);
  // Lowest index whose free time is ≤ x.
  std::optional<std::size_t> lowest_free_by(Time x) const;
  // (index, time) of the earliest-free GPU, lowest index on ties; nullopt when empty.
  std::optional<std::pair<std::size_t, Time>> earliest() const;

 private:
  std::size_t n_ = 0;
  std::size_t leaf_ = 1;  // first leaf position (a power of two)
  std::vector<Time> tree_;
};

}  // namespace servescope::engine
