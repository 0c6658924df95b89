#include "engine/ppipe/pipeline_shapes.h"

#include <stdexcept>

namespace servescope::engine {

std::vector<TypeSequence> enumerate_type_sequences(int gpu_types, int max_partitions) {
  if (gpu_types < 1 || max_partitions < 1) throw std::invalid_argument("need at least one GPU type and partition");
  std::vector<TypeSequence> out;
  for (int length = 1; length <= max_partitions; ++length) {
    TypeSequence seq(static_cast<std::size_t>(length), 0);
    while (true) {
      out.push_back(seq);
      // Odometer increment, last position fastest.
      int pos = length - 1;
      while (pos >= 0 && ++seq[static_cast<std::size_t>(pos)] == gpu_types)
        seq[static_cast<std::size_t>(pos--)] = 0;
      if (pos < 0) break;
    }
  }
  return out;
}

std::vector<std::vector<int>> enumerate_cuts(int blocks, int parts) {
  std::vector<std::vector<int>> out;
  if (parts < 1 || parts > blocks) return out;
  std::vector<int> cuts;
  // Depth-first over increasing inner cuts; each range keeps at least one block.
  auto rec = [&](auto& self, int from, int left) -> void {
    if (left == 0) {
      out.push_back(cuts);
      return;
    }
    for (int c = from + 1; c <= blocks - left; ++c) {
      cuts.push_back(c);
      self(self, c, left - 1);
      cuts.pop_back();
    }
  };
  rec(rec, 0, parts - 1);
  return out;
}

}  // namespace servescope::engine
