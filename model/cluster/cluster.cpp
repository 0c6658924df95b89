#include "model/cluster/cluster.h"

namespace servescope {

int Cluster::total_gpus() const {
  int n = 0;
  for (const auto& node : nodes)
    n += node.gpu_count * node.count;
  return n;
}

int Cluster::total_servers() const {
  int n = 0;
  for (const auto& node : nodes)
    n += node.count;
  return n;
}

std::map<std::string, int> Cluster::gpus_by_type() const {
  std::map<std::string, int> out;
  for (const auto& node : nodes)
    out[node.gpu] += node.gpu_count * node.count;
  return out;
}

std::vector<Server> Cluster::servers() const {
  std::vector<Server> out;
  out.reserve(static_cast<std::size_t>(total_servers()));
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& node = nodes[i];
    for (int k = 0; k < node.count; ++k) {
      const auto server = node.count == 1 ? node.name : node.name + "-" + std::to_string(k);
      out.push_back(Server{server, i, node.gpu_count});
    }
  }
  return out;
}

}  // namespace servescope
