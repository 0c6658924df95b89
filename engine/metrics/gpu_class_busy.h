// Busy time per GPU class (a run's busy_by_type, and its chart in the Charts tab: README
// "The GUI"): the share-weighted busy time of a class's slots over its physical GPUs. A vGPU or
// glet of share s busy a fraction b of the time uses s·b of one GPU; a class of N physical GPUs has
// N to use. One definition for the simulator's summary and the charts, so the two never disagree.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace servescope::engine {

struct GpuSlotClass {
  std::string type;
  double share = 1;  // of its physical GPU
  // Its physical GPU's index; unknown (an older run file) counts the slot as its share of one.
  std::optional<std::uint32_t> physical;
};

// The GPUs each class has: distinct physical GPUs, or for slots of unknown GPU the sum of their shares.
std::map<std::string, double> class_capacity(const std::vector<GpuSlotClass>& slots);

// Per class, Σ share × busy fraction over its capacity: `busy[g]` is slot g's busy fraction.
std::map<std::string, double> busy_by_class(const std::vector<GpuSlotClass>& slots, const std::vector<double>& busy);

}  // namespace servescope::engine
