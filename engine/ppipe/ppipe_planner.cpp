#include "engine/ppipe/ppipe_planner.h"

#include <algorithm>
#include <cmath>

#include "engine/ppipe/pipeline_shapes.h"
#include "engine/ppipe/pipeline_solver.h"
#include "model/core/error.h"

namespace servescope::engine {

std::string to_string(PpipeObjective objective) {
  return objective == PpipeObjective::LexMaxMin ? "lex-max-min" : "max-min";
}

std::string to_string(PpipeSolver solver) {
  switch (solver) {
    case PpipeSolver::Auto:
      return "auto";
    case PpipeSolver::Frontier:
      return "frontier";
    case PpipeSolver::Milp:
      return "milp";
  }
  return "?";
}

PpipeOptions max_min_np_options(PpipeOptions options) {
  options.objective = PpipeObjective::MaxMin;
  return options;
}

Duration planning_slo(Duration slo, double margin) {
  return slo - Duration::from_us(std::round(margin * slo.to_us()));
}

namespace {

std::vector<std::optional<double>> no_lambda(std::size_t n) {
  return std::vector<std::optional<double>>(n);
}

PpipeOptions np_options(PpipeOptions o) {
  o.max_partitions = 1;
  o.vgpu_divisors = {1};
  o.batch_forming = false;
  o.several_configs_per_sequence = false;
  return o;
}

}  // namespace

double PipelinePlan::total_throughput_rps() const {
  double total = 0;
  for (const auto& m : models)
    total += m.throughput_rps;
  return total;
}

int PipelinePlan::gpus_used(const std::string& gpu) const {
  int n = 0;
  for (const auto& p : pipelines)
    for (const auto& part : p.partitions)
      if (part.gpu == gpu) n += part.gpus;
  return n;
}

Duration with_company(const PlannerGpuType& type, int divisor, int batch, Duration alone) {
  if (divisor < 2) return alone;
  const double slowdown = type.contention.slowdown(GpuShare::mps(divisor), batch, divisor);
  if (slowdown == 1.0) return alone;
  return Duration::nanoseconds(std::llround(static_cast<double>(alone.count_ns()) * slowdown));
}

std::vector<PlannerGpuType> planner_gpu_types(const Cluster& cluster) {
  std::vector<PlannerGpuType> out;
  for (const auto& node : cluster.nodes) {
    auto it = std::ranges::find(out, node.gpu, &PlannerGpuType::gpu);
    if (it == out.end()) {
      out.push_back({node.gpu, 0, 0, std::min(node.nic_up_gbps, node.nic_down_gbps)});
      it = out.end() - 1;
    }
    it->count += node.gpu_count * node.count;
    it->gpus_per_server = std::max(it->gpus_per_server, node.gpu_count);
    it->nic_gbps = std::min({it->nic_gbps, node.nic_up_gbps, node.nic_down_gbps});
  }
  std::erase_if(out, [](const PlannerGpuType& t) { return t.count == 0; });
  return out;
}

PipelinePlan plan_np(const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
                     const PpipeOptions& options) {
  return solve_pipelines(models, gpus, np_options(options), "np", no_lambda(models.size()));
}

PipelinePlan plan_ppipe(const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
                        const PpipeOptions& options) {
  auto lambda = no_lambda(models.size());
  std::optional<PipelinePlan> np;
  if (options.batch_forming) {
    if (options.batch_forming_rate_rps) {
      std::ranges::fill(lambda, options.batch_forming_rate_rps);
    } else {
      // λ̂: the NP plan's throughput per model (digest §2.2), solved first.
      np = plan_np(models, gpus, max_min_np_options(options));
      for (std::size_t m = 0; m < models.size(); ++m)
        if (np->models[m].throughput_rps > 0) lambda[m] = np->models[m].throughput_rps;
    }
  }
  auto plan = solve_pipelines(models, gpus, options, "ppipe", lambda);
  if (np)
    for (std::size_t m = 0; m < models.size(); ++m)
      if (!lambda[m])
        plan.notes.push_back(models[m].profile->name +
                             ": NP serves nothing, so the batch-forming estimate is left out for it");
  return plan;
}

}  // namespace servescope::engine
