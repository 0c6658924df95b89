#include "engine/serving/simulation_result.h"

#include "model/profile/gpu_share.h"

namespace servescope::engine {

std::map<std::string, double> busy_by_gpu_type(const SimulationResult& result) {
  return busy_by_class(gpu_slot_classes(result), result.metrics->gpu_busy_fraction());
}

std::vector<GpuSlotClass> gpu_slot_classes(const SimulationResult& result) {
  std::vector<GpuSlotClass> slots;
  for (std::size_t g = 0; g < result.gpus.size(); ++g)
    slots.push_back({result.gpu_types[g], GpuShare::parse(result.gpu_shares[g]).value_or(GpuShare::whole()).fraction(),
                     result.gpu_physical[g]});
  return slots;
}

}  // namespace servescope::engine
