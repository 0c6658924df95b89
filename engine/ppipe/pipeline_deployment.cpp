#include "engine/ppipe/pipeline_deployment.h"

#include <algorithm>
#include <map>

#include "model/core/error.h"

namespace servescope::engine {

Duration PipelineDeployment::transfer_time(std::uint32_t from, std::uint32_t to, std::int64_t bytes,
                                           bool local_free) const {
  const auto a = slots[from].server, b = slots[to].server;
  if (a == b && local_free) return Duration();
  return servescope::transfer_time(bytes, std::min(servers[a].up_gbps, servers[b].down_gbps));
}

PipelineDeployment deploy_pipeline_plan(const PipelinePlan& plan, const std::vector<std::string>& models,
                                        const std::vector<PhysicalGpu>& gpus, const std::vector<LinkSpeed>& servers,
                                        const ProfileSet& profiles) {
  PipelineDeployment d;
  d.models = models;
  d.physical = gpus;
  d.servers = servers;
  d.model_pipelines.resize(models.size());
  d.kernels.resize(models.size());
  for (const auto& g : gpus)
    if (g.server >= servers.size()) throw QueryError("GPU '" + g.name + "' names a server that does not exist");

  // The next unused physical GPU of a type, in cluster order. GPUs are only ever taken this way,
  // so a cursor per type (where its last scan stopped) keeps placement linear in the cluster.
  std::vector<bool> taken(gpus.size(), false);
  std::map<std::string, std::uint32_t> next_of_type;
  auto take_gpu = [&](const std::string& type) -> std::optional<std::uint32_t> {
    auto& g = next_of_type[type];
    while (g < gpus.size() && gpus[g].gpu_type != type)
      ++g;
    if (g == gpus.size()) return std::nullopt;
    taken[g] = true;
    return g++;
  };
  auto count_of = [&](const std::string& type) {
    return std::ranges::count_if(gpus, [&](const PhysicalGpu& g) { return g.gpu_type == type; });
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
      int left = part.vgpus;
      for (int g = 0; g < part.gpus && left > 0; ++g) {
        const auto phys = take_gpu(part.gpu);
        if (!phys) {
          int needed = 0;
          for (const auto& q : plan.pipelines)
            for (const auto& r : q.partitions)
              if (r.gpu == part.gpu) needed += r.gpus;
          throw QueryError("the plan needs " + std::to_string(needed) + " " + part.gpu + " GPUs; the cluster has " +
                           std::to_string(count_of(part.gpu)));
        }
        for (int v = 0; v < part.vgpu_divisor && left > 0; ++v, --left) {
          const auto& pg = gpus[*phys];
          const auto index = static_cast<std::uint32_t>(d.slots.size());
          d.slots.push_back(GpuSlot{index, part.vgpu_divisor > 1 ? pg.name + "/v" + std::to_string(v) : pg.name,
                                    pg.gpu_type, share, pg.server});
          d.slot_physical.push_back(*phys);
          stage.pool.push_back(index);
        }
      }
      if (left > 0)
        throw QueryError("a partition of model '" + p.model + "' asks for " + std::to_string(part.vgpus) +
                         " vGPUs of 1/" + std::to_string(part.vgpu_divisor) + " on only " + std::to_string(part.gpus) +
                         " GPUs");
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
    if (!taken[g]) {
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
