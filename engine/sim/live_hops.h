// The live loop's hops, which a simulator with free messages leaves out (issue 46): a live
// scheduler orders a batch over a socket and hears its end over another, and a feature map
// crosses between two worker processes, each a process wake-up on cores the workers keep busy.
// PPipe's reservation plane plans a held-back request to end just inside its deadline (seed 000
// §4.4), so these few hundred microseconds are what make it late live and not simulated
// (docs/reproduction/fidelity.md). A live scheduler's record measures both
// (`scheduler.batch_hop_us`, `scheduler.transfer_overhead_us`; docs/formats.md), and the
// simulator draws them, seeded, per batch and per transfer between servers.
#pragma once

#include <cstdint>
#include <optional>

#include "model/profile/latency_distribution.h"

namespace servescope::engine {

struct LiveHops {
  // How long after it was ordered to start at once a batch starts on an idle slot, counted as its
  // end is heard: its order's way to the worker and its report's way back. A batch ordered ahead
  // of its start is not held unless its order is slower than the lead.
  std::optional<LatencyDistribution> batch;
  // How much longer a feature map takes than its link's time for its bytes (network_links.h).
  std::optional<LatencyDistribution> transfer;
  std::uint64_t seed = 1;
  bool any() const { return batch || transfer; }
};

}  // namespace servescope::engine
