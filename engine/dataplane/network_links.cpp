#include "engine/dataplane/network_links.h"

#include <algorithm>
#include <stdexcept>

#include "model/profile/model_profile.h"

namespace servescope::engine {

NetworkLinks::NetworkLinks(std::vector<LinkSpeed> servers, std::vector<std::uint32_t> gpu_server)
    : speed_(std::move(servers)),
      gpu_server_(std::move(gpu_server)),
      up_free_(speed_.size()),
      down_free_(speed_.size()) {
  for (const auto s : gpu_server_)
    if (s >= speed_.size()) throw std::invalid_argument("NetworkLinks: a GPU names a server that does not exist");
  for (const auto& s : speed_)
    if (!(s.up_gbps > 0) || !(s.down_gbps > 0))
      throw std::invalid_argument("NetworkLinks: link speeds must be positive");
}

Duration NetworkLinks::transfer_time(std::uint32_t from_server, std::uint32_t to_server, std::uint64_t bytes) const {
  if (from_server == to_server || bytes == 0 || speed_.empty()) return Duration();
  const double gbps = std::min(speed_[from_server].up_gbps, speed_[to_server].down_gbps);
  return servescope::transfer_time(static_cast<std::int64_t>(bytes), gbps);
}

LinkReservation NetworkLinks::reserve(std::uint32_t from_gpu, std::uint32_t to_gpu, std::uint64_t bytes, Time ready) {
  const auto from = server_of(from_gpu), to = server_of(to_gpu);
  const auto duration = transfer_time(from, to, bytes);
  if (duration == Duration()) return {ready, ready};
  const Time start = std::max({ready, up_free_[from], down_free_[to]});
  const Time end = start + duration;
  up_free_[from] = end;
  down_free_[to] = end;
  return {start, end};
}

}  // namespace servescope::engine
