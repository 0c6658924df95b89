#include "engine/ppipe/network_layout.h"

#include <algorithm>
#include <map>

namespace servescope::engine {
namespace {

// The most GPUs of `type` any one server holds: the artifact's num_gpu_per_server.
std::map<std::string, int> gpus_per_server(const PipelineDeployment& d) {
  std::map<std::pair<std::string, std::uint32_t>, int> on_server;
  for (const auto& g : d.physical)
    ++on_server[{g.gpu_type, g.server}];
  std::map<std::string, int> most;
  for (const auto& [key, n] : on_server)
    most[key.first] = std::max(most[key.first], n);
  return most;
}

}  // namespace

void apply_network_layout(PipelineDeployment& d, NetworkLayout layout) {
  d.slot_nic.clear();
  d.nics.clear();
  if (layout == NetworkLayout::PerServer) return;

  constexpr auto kUnset = UINT32_MAX;
  d.slot_nic.assign(d.slots.size(), kUnset);
  auto new_nic = [&](std::uint32_t slot) {
    d.nics.push_back(d.servers[d.slots[slot].server]);
    return static_cast<std::uint32_t>(d.nics.size() - 1);
  };
  const auto per_server = gpus_per_server(d);
  for (const auto& p : d.pipelines)
    for (std::size_t s = 0; s < p.stages.size(); ++s) {
      const auto& pool = p.stages[s].pool;
      if (pool.empty()) continue;
      if (s + 1 == p.stages.size()) {  // each final-stage vGPU receives on its own link
        for (const auto g : pool)
          d.slot_nic[g] = new_nic(g);
        continue;
      }
      // A NIC per so many physical GPUs, in placement order (a GPU's vGPUs side by side).
      const auto& next = p.stages[s + 1].pool;
      const auto& type = d.slots[pool.front()].gpu_type;
      const int gpus = std::max(per_server.at(type), next.empty() ? 1 : per_server.at(d.slots[next.front()].gpu_type));
      std::uint32_t nic = 0;
      int gpus_on_nic = 0;
      for (std::size_t i = 0; i < pool.size(); ++i) {
        const bool new_gpu = i == 0 || d.slot_physical[pool[i]] != d.slot_physical[pool[i - 1]];
        if (new_gpu && (i == 0 || gpus_on_nic == gpus)) {
          nic = new_nic(pool[i]);
          gpus_on_nic = 0;
        }
        gpus_on_nic += new_gpu ? 1 : 0;
        d.slot_nic[pool[i]] = nic;
      }
    }
  for (std::uint32_t g = 0; g < d.slots.size(); ++g)  // idle GPUs: links nobody else uses
    if (d.slot_nic[g] == kUnset) d.slot_nic[g] = new_nic(g);
}

}  // namespace servescope::engine
