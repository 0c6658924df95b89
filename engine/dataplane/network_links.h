// Each server's NIC as two links, uplink and downlink, that carry one transfer at a time in the
// order they are reserved. A transfer between servers holds the sender's uplink and the
// receiver's downlink together for bytes·8 / min(up, down) — the NIC model PPipe's data plane
// reserves against (seed 000 §4, digest §4.3). Transfers inside a server take no time (PCIe and
// NVLink are not modelled).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/dataplane/request.h"

namespace servescope::engine {

struct LinkSpeed {
  double up_gbps = 0;
  double down_gbps = 0;
};

struct LinkReservation {
  Time start, end;
};

class NetworkLinks {
 public:
  NetworkLinks() = default;  // no servers: every transfer is local and instant
  // One entry per server; `gpu_server[g]` is the server of the data plane's GPU g.
  NetworkLinks(std::vector<LinkSpeed> servers, std::vector<std::uint32_t> gpu_server);

  std::uint32_t server_of(std::uint32_t gpu) const { return gpu < gpu_server_.size() ? gpu_server_[gpu] : 0; }
  // Time to move `bytes` between two servers when both links are free.
  Duration transfer_time(std::uint32_t from_server, std::uint32_t to_server, std::uint64_t bytes) const;
  // Reserves both links from the earliest moment at or after `ready` when both are free.
  LinkReservation reserve(std::uint32_t from_gpu, std::uint32_t to_gpu, std::uint64_t bytes, Time ready);
  // When the link is next free.
  Time uplink_free(std::uint32_t server) const { return up_free_[server]; }
  Time downlink_free(std::uint32_t server) const { return down_free_[server]; }

 private:
  std::vector<LinkSpeed> speed_;
  std::vector<std::uint32_t> gpu_server_;
  std::vector<Time> up_free_, down_free_;
};

}  // namespace servescope::engine
