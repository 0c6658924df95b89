#include "engine/ppipe/gpu_placement.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "engine/ppipe/pipeline_deployment.h"
#include "model/core/error.h"

namespace servescope::engine {

GpuPlacement::GpuPlacement(const std::vector<PhysicalGpu>& gpus, const std::vector<LinkSpeed>& servers,
                           const std::map<std::string, std::vector<int>>& divisors)
    : gpus_(gpus), servers_(servers), up_(servers.size(), 0), down_(servers.size(), 0) {
  for (const auto& [type, list] : divisors) {
    std::int64_t units = 1;
    for (const int v : list) {
      units = std::lcm(units, static_cast<std::int64_t>(std::max(1, v)));
      if (units > (std::int64_t{1} << 40))
        throw QueryError("the plan splits " + type + " GPUs into too many different vGPU sizes to share them");
    }
    units_[type] = units;
  }
  for (std::uint32_t g = 0; g < gpus.size(); ++g)
    free_.push_back(units_of(g));
}

std::int64_t GpuPlacement::units_of(std::uint32_t gpu) const {
  const auto it = units_.find(gpus_[gpu].gpu_type);
  return it == units_.end() ? 1 : it->second;
}

double GpuPlacement::free_gpus(const std::string& type) const {
  double n = 0;
  for (std::uint32_t g = 0; g < gpus_.size(); ++g)
    if (gpus_[g].gpu_type == type) n += static_cast<double>(free_[g]) / static_cast<double>(units_of(g));
  return n;
}

std::optional<std::uint32_t> GpuPlacement::fresh_gpu(const std::string& type, int vgpus, Traffic traffic) const {
  std::optional<std::uint32_t> best;
  double best_load = 0;
  std::uint32_t last_server = UINT32_MAX;
  for (std::uint32_t g = 0; g < gpus_.size(); ++g) {
    if (gpus_[g].gpu_type != type || used(g)) continue;
    const auto s = gpus_[g].server;
    if (s == last_server) continue;  // a server's first fresh GPU stands for it
    last_server = s;
    if (traffic.in_bps <= 0 && traffic.out_bps <= 0) return g;  // nothing to balance: cluster order
    const double up = up_[s] + vgpus * traffic.out_bps / (servers_[s].up_gbps * 1e9);
    const double down = down_[s] + vgpus * traffic.in_bps / (servers_[s].down_gbps * 1e9);
    const double load = std::max(up, down);
    if (!best || load < best_load) {
      best = g;
      best_load = load;
    }
  }
  return best;
}

std::vector<std::uint32_t> GpuPlacement::place(const std::string& type, int divisor, int vgpus, Traffic traffic) {
  std::vector<std::uint32_t> out;
  const auto unit_it = units_.find(type);
  const std::int64_t whole = unit_it == units_.end() ? 1 : unit_it->second;
  if (whole % divisor != 0) throw std::invalid_argument("GpuPlacement: a divisor the placement was not told of");
  const std::int64_t share = whole / divisor;
  int left = vgpus;
  auto put = [&](std::uint32_t g, int n) {
    out.insert(out.end(), static_cast<std::size_t>(n), g);
    left -= n;
    free_[g] -= share * n;
    const auto s = gpus_[g].server;
    up_[s] += n * traffic.out_bps / (servers_[s].up_gbps * 1e9);
    down_[s] += n * traffic.in_bps / (servers_[s].down_gbps * 1e9);
  };
  // Shares other partitions left on GPUs they hold first, so GPUs are not opened needlessly.
  for (std::uint32_t g = 0; g < gpus_.size() && left > 0; ++g)
    if (gpus_[g].gpu_type == type && used(g) && free_[g] >= share)
      put(g, static_cast<int>(std::min<std::int64_t>(left, free_[g] / share)));
  while (left > 0) {
    const int here = std::min(left, divisor);
    const auto g = fresh_gpu(type, here, traffic);
    if (!g) return {};
    put(*g, here);
  }
  return out;
}

}  // namespace servescope::engine
