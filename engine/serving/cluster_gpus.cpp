#include "engine/serving/cluster_gpus.h"

#include <string>

namespace servescope::engine {

ClusterGpus cluster_gpus(const Cluster& cluster) {
  ClusterGpus out;
  const auto servers = cluster.servers();
  for (std::uint32_t s = 0; s < servers.size(); ++s) {
    const auto& node = cluster.nodes[servers[s].node_index];
    out.servers.push_back(LinkSpeed{node.nic_up_gbps, node.nic_down_gbps});
    out.server_node.push_back(servers[s].node_index);
    for (int g = 0; g < servers[s].gpu_count; ++g)
      out.gpus.push_back(GpuSlot{static_cast<std::uint32_t>(out.gpus.size()),
                                 servers[s].name + "/gpu" + std::to_string(g), node.gpu, GpuShare::whole(), s});
  }
  return out;
}

}  // namespace servescope::engine
