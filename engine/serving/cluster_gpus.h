// The cluster as the data planes see it: every GPU of every server (node entries expanded, in
// cluster order, named "server/gpuK") and each server's NIC. The one listing the simulator and
// the plan placement (what the cluster editor draws on its chips) share, so both put a plan's
// pools on the same GPUs.
#pragma once

#include <vector>

#include "engine/dataplane/data_plane.h"
#include "engine/dataplane/network_links.h"
#include "model/cluster/cluster.h"

namespace servescope::engine {

struct ClusterGpus {
  std::vector<GpuSlot> gpus;             // whole GPUs; GpuSlot::server indexes `servers`
  std::vector<LinkSpeed> servers;        // per expanded server
  std::vector<std::size_t> server_node;  // per server, its node entry in Cluster::nodes
};

ClusterGpus cluster_gpus(const Cluster& cluster);

}  // namespace servescope::engine
