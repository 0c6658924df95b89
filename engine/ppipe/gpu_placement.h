// Where a pooled-pipeline plan's vGPUs land on the cluster (PPipe, seed 000 §5; digest §5.1,
// issue 49). Two rules beyond the artifact's "GPUs in cluster order":
//  - MPS shares, not whole GPUs, are the capacity: a partition of 1.5 V100s at 1/2 takes three
//    halves, and the half its last GPU leaves free goes to the next partition that can use it
//    (the authors' plans share GPUs so). A plan of whole-GPU partitions places as before.
//  - A GPU goes to the server whose NIC it loads least: each vGPU's share of its pipeline's
//    feature maps in (downlink) and out (uplink) is added to its server's links, and a new GPU
//    goes where the busier of the two stays lowest (ties: cluster order). So a partition's GPUs
//    spread over servers instead of filling one NIC to the brim, and senders sit beside receivers.
//    Partitions that move no feature maps (one-partition plans) fill servers in cluster order.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/dataplane/network_links.h"

namespace servescope::engine {

struct PhysicalGpu;

class GpuPlacement {
 public:
  // `divisors` lists, per GPU type, the vGPU divisors the plan uses there (shares are counted in
  // units of their least common multiple). Both vectors must outlive the placement.
  GpuPlacement(const std::vector<PhysicalGpu>& gpus, const std::vector<LinkSpeed>& servers,
               const std::map<std::string, std::vector<int>>& divisors);

  // What one vGPU of a partition puts on its server's links, in bits per second.
  struct Traffic {
    double in_bps = 0;
    double out_bps = 0;
  };
  // Places `vgpus` vGPUs of 1/`divisor` of `type`: the physical GPU of each, side by side per GPU.
  // Empty when the cluster has too few free shares of the type left.
  std::vector<std::uint32_t> place(const std::string& type, int divisor, int vgpus, Traffic traffic);

  bool used(std::uint32_t gpu) const { return free_[gpu] < units_of(gpu); }
  // Free GPU shares of `type`, in GPUs (3.5: three whole GPUs and a half).
  double free_gpus(const std::string& type) const;

 private:
  std::int64_t units_of(std::uint32_t gpu) const;
  // The fresh GPU of `type` whose server's NIC stays least loaded with `vgpus` more vGPUs.
  std::optional<std::uint32_t> fresh_gpu(const std::string& type, int vgpus, Traffic traffic) const;

  const std::vector<PhysicalGpu>& gpus_;
  const std::vector<LinkSpeed>& servers_;
  std::map<std::string, std::int64_t> units_;  // per type: a whole GPU's units
  std::vector<std::int64_t> free_;             // per GPU, units free
  std::vector<double> up_, down_;              // per server, the fraction of its link placed vGPUs load
};

}  // namespace servescope::engine
