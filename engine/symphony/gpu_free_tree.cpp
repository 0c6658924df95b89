#include "engine/symphony/gpu_free_tree.h"

#include <algorithm>

namespace servescope::engine {

GpuFreeTree::GpuFreeTree(std::size_t gpus, Time initial) : n_(gpus) {
  while (leaf_ < std::max<std::size_t>(gpus, 1))
    leaf_ *= 2;
  tree_.assign(2 * leaf_, kNever);
  for (std::size_t i = 0; i < gpus; ++i)
    tree_[leaf_ + i] = initial;
  for (std::size_t i = leaf_ - 1; i > 0; --i)
    tree_[i] = std::min(tree_[2 * i], tree_[2 * i + 1]);
}

void GpuFreeTree::set(std::size_t gpu, Time t) {
  auto i = leaf_ + gpu;
  tree_[i] = t;
  for (i /= 2; i > 0; i /= 2)
    tree_[i] = std::min(tree_[2 * i], tree_[2 * i + 1]);
}

std::optional<std::size_t> GpuFreeTree::lowest_free_by(Time x) const {
  if (n_ == 0 || tree_[1] > x) return std::nullopt;
  std::size_t i = 1;
  while (i < leaf_)
    i = tree_[2 * i] <= x ? 2 * i : 2 * i + 1;
  return i - leaf_;
}

std::optional<std::pair<std::size_t, Time>> GpuFreeTree::earliest() const {
  if (n_ == 0) return std::nullopt;
  const Time best = tree_[1];
  std::size_t i = 1;
  while (i < leaf_)
    i = tree_[2 * i] <= best ? 2 * i : 2 * i + 1;
  return std::pair{i - leaf_, best};
}

}  // namespace servescope::engine
