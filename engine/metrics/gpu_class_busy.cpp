#include "engine/metrics/gpu_class_busy.h"

#include <set>

namespace servescope::engine {

std::map<std::string, double> class_capacity(const std::vector<GpuSlotClass>& slots) {
  std::map<std::string, std::set<std::uint32_t>> physical;
  std::map<std::string, double> capacity;
  for (const auto& s : slots) {
    if (s.physical)
      physical[s.type].insert(*s.physical);
    else
      capacity[s.type] += s.share;
  }
  for (const auto& [type, gpus] : physical)
    capacity[type] += static_cast<double>(gpus.size());
  return capacity;
}

std::map<std::string, double> busy_by_class(const std::vector<GpuSlotClass>& slots, const std::vector<double>& busy) {
  auto out = class_capacity(slots);
  std::map<std::string, double> used;
  for (std::size_t g = 0; g < slots.size() && g < busy.size(); ++g)
    used[slots[g].type] += slots[g].share * busy[g];
  for (auto& [type, value] : out)
    value = value > 0 ? used[type] / value : 0;
  return out;
}

}  // namespace servescope::engine
