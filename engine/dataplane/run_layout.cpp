#include "engine/dataplane/run_layout.h"

#include <algorithm>

namespace servescope::engine {

std::uint32_t RunLayout::physical_gpu_count() const {
  std::uint32_t physical = 0;
  for (const auto p : gpu_physical)
    physical = std::max(physical, p + 1);
  return physical;
}

std::vector<std::string> RunLayout::physical_gpu_names() const {
  std::vector<std::string> names(physical_gpu_count());
  for (std::size_t g = 0; g < gpus.size() && g < gpu_physical.size(); ++g) {
    auto& name = names[gpu_physical[g]];
    if (!name.empty()) continue;
    name = gpus[g];
    if (const auto cut = name.find_first_of("@#"); cut != std::string::npos) name.resize(cut);
    if (const auto v = name.rfind("/v"); v != std::string::npos && v > name.rfind("/gpu")) name.resize(v);
  }
  for (std::size_t p = 0; p < names.size(); ++p)
    if (names[p].empty()) names[p] = "gpu " + std::to_string(p);
  return names;
}

}  // namespace servescope::engine
