// Where a pooled-pipeline plan's vGPUs land on the cluster (PPipe, seed 000 §5; digest §5.1,
// issue 49). Two rules beyond the artifact's "GPUs in cluster order":
//  - MPS shares, not whole GPUs, are the capacity: a partition of 1.5 V100s at 1/2 takes three
//    halves, and the half its last GPU leaves free is offered to the next partition that can use
//    it (the authors' plans share GPUs so). Our planners' partitions fill whole GPUs.
//  - A new GPU goes to the server whose NIC it loads least: each vGPU's share of its pipeline's
//    feature maps in (downlink) and out (uplink) is added to its server's links, and the GPU goes
//    where the busier of the two stays lowest (ties: cluster order). So a partition's GPUs spread
//    over servers instead of filling one NIC to the brim, and senders sit beside receivers.
//    Partitions that move no feature maps (one-partition plans) fill servers in cluster order.
// Placing a partition costs O(servers of its type · log) plus its GPUs' log.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/dataplane/network_links.h"

namespace servescope::engine {

struct PhysicalGpu;

enum class GpuPlacementRule : std::uint8_t {
  NicLoad,       // new GPUs where their server's links stay least loaded (the default)
  ClusterOrder,  // the artifact's: every partition fills servers in cluster order
};

class GpuPlacement {
 public:
  // `divisors` lists, per GPU type, the vGPU divisors the plan uses there (shares are counted in
  // units of their least common multiple). Both vectors must outlive the placement.
  GpuPlacement(const std::vector<PhysicalGpu>& gpus, const std::vector<LinkSpeed>& servers,
               const std::map<std::string, std::vector<int>>& divisors);

  // What one vGPU of a partition puts on its server's links, in bits per second (integers, so
  // that sums do not depend on the order they are made in and ties stay ties).
  struct Traffic {
    std::int64_t in_bps = 0;
    std::int64_t out_bps = 0;
  };
  // Places `vgpus` vGPUs of 1/`divisor` of `type`: the physical GPU of each, a GPU's vGPUs side
  // by side. Empty when the type's free shares do not hold them; the placement is then spent
  // (its caller gives up on the plan).
  std::vector<std::uint32_t> place(const std::string& type, int divisor, int vgpus, Traffic traffic);

  bool used(std::uint32_t gpu) const { return free_[gpu] < whole_[gpu]; }

 private:
  // A server's GPUs of one type, in cluster order; those before `next` are taken.
  struct ServerGpus {
    std::uint32_t server = 0;
    std::vector<std::uint32_t> gpus;
    std::size_t next = 0;
  };
  struct TypeGpus {
    std::int64_t units = 1;              // a whole GPU's share units
    std::vector<ServerGpus> servers;     // in cluster order
    std::size_t first_open = 0;          // no server before it has a fresh GPU
    std::vector<std::uint32_t> partial;  // GPUs partitions hold shares of, with shares left
  };

  void put(std::uint32_t gpu, int vgpus, std::int64_t share, Traffic traffic, std::vector<std::uint32_t>& out);
  // How loaded a server's busier link would be with `vgpus` more vGPUs of `traffic`.
  double load_with(std::uint32_t server, int vgpus, Traffic traffic) const;

  const std::vector<PhysicalGpu>& gpus_;
  const std::vector<LinkSpeed>& servers_;
  std::map<std::string, TypeGpus> types_;
  std::vector<std::int64_t> whole_, free_;       // per GPU, units
  std::vector<std::int64_t> up_bps_, down_bps_;  // per server, what placed vGPUs send and receive
};

}  // namespace servescope::engine
