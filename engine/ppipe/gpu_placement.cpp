#include "engine/ppipe/gpu_placement.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <stdexcept>

#include "engine/ppipe/pipeline_deployment.h"
#include "model/core/error.h"

namespace servescope::engine {

GpuPlacement::GpuPlacement(const std::vector<PhysicalGpu>& gpus, const std::vector<LinkSpeed>& servers,
                           const std::map<std::string, std::vector<int>>& divisors)
    : gpus_(gpus), servers_(servers), up_bps_(servers.size(), 0), down_bps_(servers.size(), 0) {
  for (const auto& [type, list] : divisors) {
    std::int64_t units = 1;
    for (const int v : list) {
      units = std::lcm(units, static_cast<std::int64_t>(std::max(1, v)));
      if (units > (std::int64_t{1} << 40))
        throw QueryError("the plan splits " + type + " GPUs into too many different vGPU sizes to share them");
    }
    types_[type].units = units;
  }
  for (std::uint32_t g = 0; g < gpus.size(); ++g) {
    auto& type = types_[gpus[g].gpu_type];
    if (type.servers.empty() || type.servers.back().server != gpus[g].server)
      type.servers.push_back({gpus[g].server, {}, 0});
    type.servers.back().gpus.push_back(g);
    whole_.push_back(type.units);
  }
  free_ = whole_;
}

double GpuPlacement::load_with(std::uint32_t server, int vgpus, Traffic traffic) const {
  const auto& s = servers_[server];
  const double up = static_cast<double>(up_bps_[server] + vgpus * traffic.out_bps) / s.up_gbps;
  const double down = static_cast<double>(down_bps_[server] + vgpus * traffic.in_bps) / s.down_gbps;
  return std::max(up, down);
}

void GpuPlacement::put(std::uint32_t gpu, int vgpus, std::int64_t share, Traffic traffic,
                       std::vector<std::uint32_t>& out) {
  out.insert(out.end(), static_cast<std::size_t>(vgpus), gpu);
  free_[gpu] -= share * vgpus;
  up_bps_[gpus_[gpu].server] += vgpus * traffic.out_bps;
  down_bps_[gpus_[gpu].server] += vgpus * traffic.in_bps;
}

std::vector<std::uint32_t> GpuPlacement::place(const std::string& type_name, int divisor, int vgpus, Traffic traffic) {
  std::vector<std::uint32_t> out;
  const auto it = types_.find(type_name);
  if (it == types_.end() || vgpus < 1) return out;
  auto& type = it->second;
  if (type.units % divisor != 0) throw std::invalid_argument("GpuPlacement: a divisor the placement was not told of");
  const std::int64_t share = type.units / divisor;
  int left = vgpus;

  // Shares other partitions left on GPUs they hold, where they divide what is free (a half
  // beside a half); then fresh GPUs; shares that leave a piece behind only when no fresh GPU is
  // left, so that vGPUs of other sizes strand as little as they can.
  auto fill_partial = [&](bool exact) {
    for (const auto g : type.partial) {
      if (left == 0) break;
      if (free_[g] < share || (exact && free_[g] % share != 0)) continue;
      const int n = static_cast<int>(std::min<std::int64_t>(left, free_[g] / share));
      put(g, n, share, traffic, out);
      left -= n;
    }
    std::erase_if(type.partial, [&](std::uint32_t g) { return free_[g] == 0; });
  };
  fill_partial(true);

  auto open = [&](ServerGpus& s) {
    const auto g = s.gpus[s.next++];
    const int n = std::min(left, divisor);
    put(g, n, share, traffic, out);
    left -= n;
    if (free_[g] > 0) type.partial.push_back(g);
  };
  if (traffic.in_bps == 0 && traffic.out_bps == 0) {  // nothing to balance: cluster order
    while (left > 0) {
      while (type.first_open < type.servers.size() &&
             type.servers[type.first_open].next == type.servers[type.first_open].gpus.size())
        ++type.first_open;
      if (type.first_open == type.servers.size()) break;
      open(type.servers[type.first_open]);
    }
  } else {
    // The server whose busier link stays lowest with a GPU's worth more, ties in cluster order.
    using Entry = std::pair<double, std::size_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> best;
    for (std::size_t i = type.first_open; i < type.servers.size(); ++i)
      if (type.servers[i].next < type.servers[i].gpus.size())
        best.emplace(load_with(type.servers[i].server, divisor, traffic), i);
    while (left > 0 && !best.empty()) {
      const auto i = best.top().second;
      best.pop();
      auto& s = type.servers[i];
      open(s);
      if (s.next < s.gpus.size()) best.emplace(load_with(s.server, divisor, traffic), i);
    }
  }
  if (left > 0) fill_partial(false);
  if (left > 0) return {};
  return out;
}

}  // namespace servescope::engine
