// A cluster as servers ("nodes") holding GPUs of one type behind one NIC. A node entry may
// stand for several identical servers (`count`), which keeps the papers' 100-GPU clusters
// readable; the simulator expands them. GPUs on a server share its uplink and downlink, which
// is what PPipe's reservation batching schedules around (seed 000 §4).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace servescope {

// A point on the cluster editor's canvas (scene units, about a pixel at 100 %).
struct CanvasPoint {
  double x = 0;
  double y = 0;

  bool operator==(const CanvasPoint&) const = default;
};

struct Node {
  std::string name;
  std::string gpu;  // catalog id
  int gpu_count = 1;
  int count = 1;  // identical servers this entry stands for
  double nic_up_gbps = 10;
  double nic_down_gbps = 10;
  // Where the user put the node in the cluster editor; unset, the editor lays it out in a grid.
  // Kept in the file so a drawing survives a reload; nothing else reads it.
  std::optional<CanvasPoint> position;

  bool operator==(const Node&) const = default;
};

// One physical server after expansion.
struct Server {
  std::string name;  // "t4-3" for the fourth server of entry "t4"; the entry name when count == 1
  std::size_t node_index = 0;
  int gpu_count = 0;
};

struct Cluster {
  std::string name;
  std::string description;
  std::vector<Node> nodes;

  int total_gpus() const;
  int total_servers() const;
  std::map<std::string, int> gpus_by_type() const;
  std::vector<Server> servers() const;

  bool operator==(const Cluster&) const = default;
};

inline constexpr int kMaxGpusPerNode = 64;
inline constexpr int kMaxNodeCount = 100'000;
inline constexpr double kMaxNicGbps = 100'000;
inline constexpr double kMaxCanvasCoordinate = 1e7;

}  // namespace servescope
