#include "engine/glet/glet_deployment.h"

#include <algorithm>
#include <map>

#include "model/core/error.h"

namespace servescope::engine {

namespace {

// Plan model index → data plane model index (absent: the workload does not send it).
std::vector<std::optional<std::uint32_t>> plane_models(const GletPlan& plan, const std::vector<std::string>& models) {
  std::vector<std::optional<std::uint32_t>> to_plane;
  for (const auto& m : plan.models) {
    const auto it = std::ranges::find(models, m.name);
    to_plane.push_back(it == models.end() ? std::nullopt
                                          : std::optional(static_cast<std::uint32_t>(it - models.begin())));
  }
  return to_plane;
}

GletSlot slot_for(const Glet& l, const std::vector<std::optional<std::uint32_t>>& to_plane,
                  const std::vector<const ModelProfile*>& profiles, const std::string& gpu_type) {
  GletSlot s;
  s.size_percent = l.size_percent;
  s.duty_cycle = l.duty_cycle;
  for (const auto& a : l.models)
    if (const auto m = to_plane[static_cast<std::size_t>(a.model)]) {
      HostedModel h{*m, a.batch, a.rate_rps, a.latency, {}};
      if (*m < profiles.size() && profiles[*m]) {
        const BatchLatency curve(*profiles[*m], gpu_type, GpuShare::percent(l.size_percent));
        for (int k = 1; k <= curve.max_batch(); ++k)
          h.latency_by_batch.push_back(Duration::from_s(curve.at(k).to_s() * a.interference));
      }
      s.hosted.push_back(std::move(h));
    }
  return s;
}

void note_unplanned(GletDeployment& d, const std::vector<std::string>& models) {
  for (std::size_t m = 0; m < models.size(); ++m) {
    const bool served = std::ranges::any_of(d.glets, [&](const GletSlot& s) {
      return std::ranges::any_of(s.hosted, [&](const HostedModel& h) { return h.model == m; });
    });
    if (!served) d.unplanned.push_back(models[m]);
  }
}

}  // namespace

GletDeployment deploy_glet_plan(const GletPlan& plan, const std::vector<std::string>& models,
                                const std::vector<GpuSlot>& gpus, const std::vector<const ModelProfile*>& profiles) {
  std::vector<const GpuSlot*> physical;
  for (const auto& g : gpus)
    if (g.gpu_type == plan.gpu) physical.push_back(&g);
  const int used = plan.layout.gpus_used();
  if (static_cast<int>(physical.size()) < used)
    throw QueryError("the " + plan.system + " plan uses " + std::to_string(used) + " " + plan.gpu +
                     " GPU(s); the cluster has " + std::to_string(physical.size()));
  const auto to_plane = plane_models(plan, models);
  GletDeployment d;
  std::size_t next_gpu = 0;
  for (const auto& gpu : plan.layout.gpus) {
    if (!gpu.used()) continue;
    const auto& host = *physical[next_gpu];
    std::vector<std::uint32_t> here;
    for (const auto& l : gpu.glets) {
      if (l.free()) continue;
      const auto index = static_cast<std::uint32_t>(d.slots.size());
      here.push_back(index);
      d.slots.push_back(GpuSlot{index, host.name + "@" + std::to_string(l.size_percent) + "%", host.gpu_type,
                                GpuShare::percent(l.size_percent), host.server});
      d.slot_physical.push_back(host.index);
      d.glets.push_back(slot_for(l, to_plane, profiles, host.gpu_type));
    }
    if (here.size() == 2) {
      d.glets[here[0]].neighbour = here[1];
      d.glets[here[1]].neighbour = here[0];
    }
    ++next_gpu;
  }
  note_unplanned(d, models);
  return d;
}

GletDeployment deploy_glet_plan_paired(const GletPlan& plan, const std::vector<std::string>& models,
                                       const std::vector<GpuSlot>& slots, const std::vector<std::uint32_t>& physical,
                                       const std::vector<const ModelProfile*>& profiles) {
  if (plan.layout.gpus.size() * 2 > slots.size())
    throw QueryError("the " + plan.system + " schedule splits " + std::to_string(plan.layout.gpus.size()) +
                     " GPU(s); there are " + std::to_string(slots.size() / 2));
  const auto to_plane = plane_models(plan, models);
  GletDeployment d;
  d.slots = slots;
  d.slot_physical = physical;
  d.glets.resize(slots.size());
  for (std::size_t g = 0; g < slots.size() / 2; ++g) {
    if (g >= plan.layout.gpus.size()) {
      d.glets[2 * g].size_percent = 100;  // a GPU the schedule does not use: whole and idle
      continue;
    }
    const auto& glets = plan.layout.gpus[g].glets;
    for (std::size_t k = 0; k < glets.size(); ++k) {
      d.glets[2 * g + k] = slot_for(glets[k], to_plane, profiles, slots[2 * g + k].gpu_type);
      d.slots[2 * g + k].share = GpuShare::percent(glets[k].size_percent);
    }
    if (glets.size() == 2 && !glets[0].free() && !glets[1].free()) {
      d.glets[2 * g].neighbour = static_cast<std::uint32_t>(2 * g + 1);
      d.glets[2 * g + 1].neighbour = static_cast<std::uint32_t>(2 * g);
    }
  }
  note_unplanned(d, models);
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
