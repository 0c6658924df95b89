// A run's slots bound to the measured contention of their devices (issue 46): which slots share a
// physical device, and how much k busy slots of it slow one batch there, from the scenario's
// contention model per device type (model/profile/contention_model.h). The simulator calls it at
// every start and end on a shared device (Simulator::set_contention), so each answer is computed
// once per slot class, batch size and slot count and then looked up.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "engine/dataplane/run_layout.h"
#include "model/profile/model_profile.h"

namespace servescope::engine {

class SlotContention {
 public:
  // Slots of a type without measured contention, or alone on their device, never slow down.
  SlotContention(const ProfileSet& profiles, const RunLayout& layout);
  // Whether any device holds two slots or more and has measured contention: without one, the run
  // is the same with or without this.
  bool any() const { return any_; }
  // Per slot: its physical device.
  const std::vector<std::uint32_t>& device() const { return device_; }
  // The slowdown of a batch of `batch` on `slot` while `slots` slots of its device run.
  double slowdown(std::uint32_t slot, int batch, int slots) const;

 private:
  std::vector<ContentionModel> models_;  // per device type that has samples
  struct SlotClass {
    std::int32_t model = -1;  // in models_; −1: none
    GpuShare share;
  };
  std::vector<SlotClass> classes_;
  std::vector<std::uint32_t> class_of_;  // per slot
  std::vector<std::uint32_t> device_;    // per slot
  bool any_ = false;
  mutable std::unordered_map<std::uint64_t, double> cache_;
};

// Per slot of `layout`, its device type's spell length (ContentionModel::spell); zero where none
// was measured.
std::vector<Duration> slot_spells(const ProfileSet& profiles, const RunLayout& layout);

}  // namespace servescope::engine
