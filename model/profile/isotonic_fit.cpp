#include "model/profile/isotonic_fit.h"

#include <cmath>

namespace servescope {

std::vector<Duration> isotonic_fit(const std::vector<Duration>& values, const std::vector<double>& weights) {
  struct Block {
    double mean = 0, weight = 0;
    std::size_t count = 0;
  };
  std::vector<Block> blocks;
  blocks.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double w = i < weights.size() && weights[i] > 0 ? weights[i] : 1.0;
    blocks.push_back({static_cast<double>(values[i].count_ns()), w, 1});
    // Pool while the last block undercuts the one before it.
    while (blocks.size() > 1 && blocks.back().mean < blocks[blocks.size() - 2].mean) {
      const auto last = blocks.back();
      blocks.pop_back();
      auto& prev = blocks.back();
      prev.mean = (prev.mean * prev.weight + last.mean * last.weight) / (prev.weight + last.weight);
      prev.weight += last.weight;
      prev.count += last.count;
    }
  }
  std::vector<Duration> out;
  out.reserve(values.size());
  for (const auto& b : blocks)
    for (std::size_t k = 0; k < b.count; ++k)
      out.push_back(Duration::nanoseconds(std::llround(b.mean)));
  return out;
}

}  // namespace servescope
