#include "engine/ppipe/pipeline_deployment.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/ppipe/gpu_placement.h"
#include "model/core/error.h"
#include "model/core/text.h"

namespace servescope::engine {

Duration PipelineDeployment::transfer_time(std::uint32_t from, std::uint32_t to, std::int64_t bytes,
                                           bool local_free) const {
  if (slots[from].server == slots[to].server && local_free) return Duration();
  return servescope::transfer_time(bytes, std::min(nic(nic_of(from)).up_gbps, nic(nic_of(to)).down_gbps));
}

NetworkLinks PipelineDeployment::network_links() const {
  std::vector<std::uint32_t> of(slots.size());
  for (std::uint32_t s = 0; s < slots.size(); ++s)
    of[s] = nic_of(s);
  return NetworkLinks(nics.empty() ? servers : nics, std::move(of));
}

PipelineDeployment deploy_pipeline_plan(const PipelinePlan& plan, const std::vector<std::string>& models,
                                        const std::vector<PhysicalGpu>& gpus, const std::vector<LinkSpeed>& servers,
                                        const ProfileSet& profiles, GpuPlacementRule rule) {
  PipelineDeployment d;
  d.models = models;
  d.physical = gpus;
  d.servers = servers;
  d.model_pipelines.resize(models.size());
  d.kernels.resize(models.size());
  for (const auto& g : gpus)
    if (g.server >= servers.size()) throw QueryError("GPU '" + g.name + "' names a server that does not exist");

  std::map<std::string, std::vector<int>> divisors;
  for (const auto& p : plan.pipelines)
    for (const auto& part : p.partitions)
      divisors[part.gpu].push_back(part.vgpu_divisor);
  GpuPlacement placement(gpus, servers, divisors);
  std::vector<int> slots_on(gpus.size(), 0);
  // Shares, not whole GPUs: what the plan asks of a type against what the cluster has.
  auto shortage = [&](const std::string& type) {
    double needed = 0;
    for (const auto& q : plan.pipelines)
      for (const auto& r : q.partitions)
        if (r.gpu == type) needed += static_cast<double>(r.vgpus) / std::max(1, r.vgpu_divisor);
    const auto have = std::ranges::count_if(gpus, [&](const PhysicalGpu& g) { return g.gpu_type == type; });
    if (needed <= static_cast<double>(have) + 1e-9)  // enough in sum, but pieces no vGPU fits
      return QueryError("the plan's " + format_number(needed) + " " + type + " GPUs' worth of vGPUs do not pack into " +
                        "the cluster's " + std::to_string(have) + ": vGPUs of different sizes leave shares none fits");
    return QueryError("the plan needs " + format_number(needed) + " " + type + " GPUs; the cluster has " +
                      std::to_string(have));
  };

  for (const auto& p : plan.pipelines) {
    const auto mit = std::ranges::find(models, p.model);
    if (mit == models.end()) continue;  // a model the workload does not send requests to
    const auto model = static_cast<std::uint32_t>(mit - models.begin());
    const auto& profile = profiles.get(p.model);
    DeployedPipeline dp{model, p.batch, p.assigned_rps, {}};
    for (std::size_t k = 0; k < p.partitions.size(); ++k) {
      const auto& part = p.partitions[k];
      DeployedStage stage;
      stage.blocks = part.blocks;
      stage.in_bytes_per_sample = k == 0 ? 0 : profile.cut_bytes(part.blocks.begin);
      const auto share = GpuShare::mps(part.vgpu_divisor);
      stage.latency = BatchLatency(profile, part.gpu, share, p.batch, part.blocks);
      if (stage.latency.max_batch() < p.batch)
        throw QueryError("model '" + p.model + "' on " + part.gpu + " " + share.to_string() +
                         ": the profile stops at batch " + std::to_string(stage.latency.max_batch()) +
                         ", the plan runs batch " + std::to_string(p.batch));
      auto& kernels = d.kernels[model];
      const auto kit = std::ranges::find(kernels, part.blocks);
      stage.kernel = static_cast<std::uint32_t>(kit - kernels.begin());
      if (kit == kernels.end()) kernels.push_back(part.blocks);
      if (part.vgpus < 1) throw QueryError("a partition of model '" + p.model + "' has no vGPUs");
      if (part.vgpus > part.gpus * part.vgpu_divisor)
        throw QueryError("a partition of model '" + p.model + "' asks for " + std::to_string(part.vgpus) +
                         " vGPUs of 1/" + std::to_string(part.vgpu_divisor) + " on only " + std::to_string(part.gpus) +
                         " GPUs");
      // Each vGPU's share of the pipeline's feature maps, in and out.
      const double per_vgpu_rps = std::max(0.0, p.assigned_rps) / part.vgpus;
      const auto out_bytes = k + 1 < p.partitions.size() ? profile.cut_bytes(part.blocks.end) : std::int64_t{0};
      const auto bps = [&](std::int64_t bytes) {  // no traffic to balance: cluster order
        if (rule == GpuPlacementRule::ClusterOrder) return std::int64_t{0};
        return static_cast<std::int64_t>(std::llround(per_vgpu_rps * 8.0 * static_cast<double>(bytes)));
      };
      const auto placed = placement.place(part.gpu, part.vgpu_divisor, part.vgpus,
                                          GpuPlacement::Traffic{bps(stage.in_bytes_per_sample), bps(out_bytes)});
      if (placed.empty()) throw shortage(part.gpu);
      for (const auto phys : placed) {
        const int on_gpu = slots_on[phys]++;  // a GPU's vGPUs are numbered across partitions
        const auto& pg = gpus[phys];
        const auto index = static_cast<std::uint32_t>(d.slots.size());
        d.slots.push_back(GpuSlot{index, part.vgpu_divisor > 1 ? pg.name + "/v" + std::to_string(on_gpu) : pg.name,
                                  pg.gpu_type, share, pg.server});
        d.slot_physical.push_back(phys);
        stage.pool.push_back(index);
      }
      dp.stages.push_back(std::move(stage));
    }
    d.model_pipelines[model].push_back(static_cast<std::uint32_t>(d.pipelines.size()));
    d.pipelines.push_back(std::move(dp));
  }
  for (std::size_t m = 0; m < models.size(); ++m)
    if (d.model_pipelines[m].empty())
      throw QueryError("the plan gives model '" + models[m] + "' no pipeline, so its requests could not be served" +
                       (std::ranges::any_of(plan.models, [&](const PlannedModel& pm) { return pm.name == models[m]; })
                            ? " (the planner found it infeasible on this cluster)"
                            : " (the plan was made for other models)"));
  // Unused GPUs stay in the cluster, idle.
  for (std::uint32_t g = 0; g < gpus.size(); ++g)
    if (!placement.used(g)) {
      d.slots.push_back(GpuSlot{static_cast<std::uint32_t>(d.slots.size()), gpus[g].name, gpus[g].gpu_type,
                                GpuShare::whole(), gpus[g].server});
      d.slot_physical.push_back(g);
    }
  return d;
}

ExecutionTimes PipelineDeployment::execution_times(const ProfileSet& profiles) const {
  // A class per (GPU type, share) among the slots.
  std::map<std::pair<std::string, GpuShare>, std::uint32_t> class_of;
  std::vector<std::uint32_t> gpu_class;
  for (const auto& s : slots) {
    const auto [it, fresh] = class_of.try_emplace({s.gpu_type, s.share}, static_cast<std::uint32_t>(class_of.size()));
    gpu_class.push_back(it->second);
  }
  std::vector<std::vector<std::vector<BatchLatency>>> latency(models.size());
  for (std::size_t m = 0; m < models.size(); ++m)
    latency[m].assign(kernels[m].size(), std::vector<BatchLatency>(class_of.size()));
  for (const auto& p : pipelines)
    for (const auto& st : p.stages) {
      const auto& slot = slots[st.pool.front()];
      auto& cell = latency[p.model][st.kernel][class_of.at({slot.gpu_type, slot.share})];
      // Executors may run any batch the profile has, not only up to the planned one.
      if (cell.max_batch() == 0)
        cell = BatchLatency(profiles.get(models[p.model]), slot.gpu_type, slot.share, 0, st.blocks);
    }
  return ExecutionTimes::with_kernels(std::move(latency), std::move(gpu_class));
}

}  // namespace servescope::engine
