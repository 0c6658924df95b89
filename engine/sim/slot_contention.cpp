#include "engine/sim/slot_contention.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace servescope::engine {

SlotContention::SlotContention(const ProfileSet& profiles, const RunLayout& layout) {
  std::map<std::string, std::int32_t> model_of_type;
  std::map<std::pair<std::int32_t, GpuShare>, std::uint32_t> class_index;
  std::map<std::uint32_t, std::pair<int, bool>> device_slots;  // slots, whether one has a model
  for (std::size_t g = 0; g < layout.gpus.size(); ++g) {
    const std::string type = g < layout.gpu_types.size() ? layout.gpu_types[g] : std::string();
    auto [it, added] = model_of_type.try_emplace(type, -1);
    if (added && !type.empty()) {
      auto model = profiles.contention_on(type);
      if (!model.samples.empty()) {
        it->second = static_cast<std::int32_t>(models_.size());
        models_.push_back(std::move(model));
      }
    }
    const GpuShare share = g < layout.gpu_shares.size()
                               ? GpuShare::parse(layout.gpu_shares[g]).value_or(GpuShare::whole())
                               : GpuShare::whole();
    const auto [cls, fresh] = class_index.try_emplace({it->second, share}, static_cast<std::uint32_t>(classes_.size()));
    if (fresh) classes_.push_back({it->second, share});
    class_of_.push_back(cls->second);
    device_.push_back(g < layout.gpu_physical.size() ? layout.gpu_physical[g] : static_cast<std::uint32_t>(g));
    auto& [count, measured] = device_slots[device_.back()];
    ++count;
    measured = measured || it->second >= 0;
  }
  any_ = std::ranges::any_of(device_slots, [](const auto& d) { return d.second.first > 1 && d.second.second; });
}

double SlotContention::slowdown(std::uint32_t slot, int batch, int slots) const {
  if (slots <= 1) return 1;
  const auto cls = class_of_[slot];
  const auto& c = classes_[cls];
  if (c.model < 0) return 1;
  const auto key = (static_cast<std::uint64_t>(cls) << 40) | (static_cast<std::uint64_t>(batch) << 16) |
                   static_cast<std::uint64_t>(slots);
  const auto [it, added] = cache_.try_emplace(key, 1.0);
  if (added) it->second = models_[static_cast<std::size_t>(c.model)].slowdown(c.share, batch, slots);
  return it->second;
}

std::vector<Duration> slot_spells(const ProfileSet& profiles, const RunLayout& layout) {
  std::map<std::string, Duration> of_type;
  std::vector<Duration> out;
  for (std::size_t g = 0; g < layout.gpus.size(); ++g) {
    const std::string type = g < layout.gpu_types.size() ? layout.gpu_types[g] : std::string();
    auto [it, added] = of_type.try_emplace(type);
    if (added && !type.empty()) it->second = profiles.contention_on(type).spell;
    out.push_back(it->second);
  }
  return out;
}

}  // namespace servescope::engine
