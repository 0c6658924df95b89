// Which NIC a pipeline's vGPUs send and receive through (PPipe, seed 000 §5.2; digest §4.1 and
// §5.1 "node layout"). The paper's model, and ServeScope's default, is the cluster's: one uplink
// and one downlink per server, shared by every vGPU on it. The authors' cluster simulator lays
// links out per pipeline instead (issue 49): a non-final partition's vGPUs share one NIC per
// max(its, the next partition's) GPUs-per-server physical GPUs, taken in placement order
// whatever server they are on, and every final-stage vGPU
// receives on a NIC of its own, so no two pipelines, and no two final-stage vGPUs, contend for a
// link. Choosing the artifact's layout reproduces its numbers; it is not a cluster one can build.
#pragma once

#include <cstdint>

#include "engine/ppipe/pipeline_deployment.h"

namespace servescope::engine {

enum class NetworkLayout : std::uint8_t {
  PerServer,  // one NIC per physical server (the paper, a real cluster)
  Artifact,   // the artifact's cluster-sim: per pipeline, as above
};

// Redraws `d`'s NICs (slot_nic, nics) by `layout`; PerServer restores one per server. Each NIC
// keeps the speed of the server its first vGPU sits on.
void apply_network_layout(PipelineDeployment& d, NetworkLayout layout);

}  // namespace servescope::engine
