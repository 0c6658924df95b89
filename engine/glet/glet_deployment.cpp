#include "engine/glet/glet_deployment.h"

#include <algorithm>
#include <map>

#include "model/core/error.h"

namespace servescope::engine {

GletDeployment deploy_glet_plan(const GletPlan& plan, const std::vector<std::string>& models,
                                const std::vector<GpuSlot>& gpus, const std::vector<const ModelProfile*>& profiles) {
  std::vector<const GpuSlot*> physical;
  for (const auto& g : gpus)
    if (g.gpu_type == plan.gpu) physical.push_back(&g);
  const int used = plan.layout.gpus_used();
  if (static_cast<int>(physical.size()) < used)
    throw QueryError("the " + plan.system + " plan uses " + std::to_string(used) + " " + plan.gpu +
                     " GPU(s); the cluster has " + std::to_string(physical.size()));
  // Plan model index → data plane model index (absent: the workload does not send it).
  std::vector<std::optional<std::uint32_t>> to_plane;
  for (const auto& m : plan.models) {
    const auto it = std::ranges::find(models, m.name);
    to_plane.push_back(it == models.end() ? std::nullopt
                                          : std::optional(static_cast<std::uint32_t>(it - models.begin())));
  }
  GletDeployment d;
  std::size_t next_gpu = 0;
  for (const auto& gpu : plan.layout.gpus) {
    if (!gpu.used()) continue;
    const auto& host = *physical[next_gpu];
    std::vector<std::uint32_t> here;
    for (const auto& l : gpu.glets) {
      if (l.free()) continue;
      GletSlot s;
      s.size_percent = l.size_percent;
      s.duty_cycle = l.duty_cycle;
      for (const auto& a : l.models)
        if (const auto m = to_plane[static_cast<std::size_t>(a.model)]) {
          HostedModel h{*m, a.batch, a.rate_rps, a.latency, {}};
          if (*m < profiles.size() && profiles[*m]) {
            const BatchLatency curve(*profiles[*m], host.gpu_type, GpuShare::percent(l.size_percent));
            for (int k = 1; k <= curve.max_batch(); ++k)
              h.latency_by_batch.push_back(Duration::from_s(curve.at(k).to_s() * a.interference));
          }
          s.hosted.push_back(std::move(h));
        }
      const auto index = static_cast<std::uint32_t>(d.slots.size());
      here.push_back(index);
      d.slots.push_back(GpuSlot{index, host.name + "@" + std::to_string(l.size_percent) + "%", host.gpu_type,
                                GpuShare::percent(l.size_percent), host.server});
      d.slot_physical.push_back(host.index);
      d.glets.push_back(std::move(s));
    }
    if (here.size() == 2) {
      d.glets[here[0]].neighbour = here[1];
      d.glets[here[1]].neighbour = here[0];
    }
    ++next_gpu;
  }
  for (std::size_t m = 0; m < models.size(); ++m) {
    const bool served = std::ranges::any_of(d.glets, [&](const GletSlot& s) {
      return std::ranges::any_of(s.hosted, [&](const HostedModel& h) { return h.model == m; });
    });
    if (!served) d.unplanned.push_back(models[m]);
  }
  return d;
}

ExecutionTimes GletDeployment::execution_times(const std::vector<const ModelProfile*>& profiles) const {
  // One class per glet size in use; a model need only be timed at the sizes that host it.
  std::map<int, std::uint32_t> class_of;
  for (const auto& g : glets)
    class_of.emplace(g.size_percent, 0);
  std::uint32_t next = 0;
  for (auto& [size, c] : class_of)
    c = next++;
  std::vector<std::vector<BatchLatency>> latency(profiles.size(), std::vector<BatchLatency>(class_of.size()));
  for (std::size_t s = 0; s < glets.size(); ++s)
    for (const auto& h : glets[s].hosted) {
      auto& cell = latency[h.model][class_of.at(glets[s].size_percent)];
      if (cell.max_batch() == 0)
        cell = BatchLatency(*profiles[h.model], slots[s].gpu_type, GpuShare::percent(glets[s].size_percent));
    }
  std::vector<std::uint32_t> gpu_class;
  for (const auto& g : glets)
    gpu_class.push_back(class_of.at(g.size_percent));
  return ExecutionTimes(std::move(latency), std::move(gpu_class));
}

}  // namespace servescope::engine
