#include "tests/support/pipeline_plan_checker.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace servescope::test {
namespace {

const engine::PlannerGpuType* type_of(const PlanCheckInput& in, const std::string& gpu) {
  for (const auto& t : in.gpus)
    if (t.gpu == gpu) return &t;
  return nullptr;
}

}  // namespace

std::vector<std::string> check_pipeline_plan(const engine::PipelinePlan& plan, const PlanCheckInput& in) {
  std::vector<std::string> problems;
  const auto fail = [&](const std::string& where, const std::string& what) { problems.push_back(where + ": " + what); };
  std::map<std::string, int> gpus_used;
  std::map<std::string, double> model_rate;
  for (std::size_t pi = 0; pi < plan.pipelines.size(); ++pi) {
    const auto& pipe = plan.pipelines[pi];
    const std::string where = "pipeline " + std::to_string(pi) + " (" + pipe.model + ")";
    const auto model =
        std::ranges::find_if(in.models, [&](const engine::PlannerModel& m) { return m.profile->name == pipe.model; });
    if (model == in.models.end()) {
      fail(where, "names a model that was not planned");
      continue;
    }
    const auto& profile = *model->profile;
    if (pipe.partitions.empty()) fail(where, "has no partitions");
    int expect_begin = 0;
    Duration latency;
    double capacity = 1e300;
    for (std::size_t d = 0; d < pipe.partitions.size(); ++d) {
      const auto& part = pipe.partitions[d];
      const std::string at = where + " partition " + std::to_string(d);
      const auto* type = type_of(in, part.gpu);
      if (!type) {
        fail(at, "runs on " + part.gpu + ", which the cluster does not have");
        continue;
      }
      if (part.blocks.begin != expect_begin || part.blocks.end <= part.blocks.begin)
        fail(at, "blocks are not contiguous from the previous partition");
      expect_begin = part.blocks.end;
      const auto l =
          engine::with_company(*type, part.vgpu_divisor, pipe.batch,
                               profile.latency({part.gpu, GpuShare::mps(part.vgpu_divisor), pipe.batch, part.blocks}));
      if (l != part.latency) fail(at, "latency differs from the profile");
      Duration transfer;
      const bool last = d + 1 == pipe.partitions.size();
      double per_vgpu = pipe.batch / l.to_s();
      if (!last) {
        const auto* next = type_of(in, pipe.partitions[d + 1].gpu);
        const double bw = std::min(type->nic_gbps, next ? next->nic_gbps : type->nic_gbps);
        transfer = transfer_time(profile.cut_bytes(part.blocks.end) * pipe.batch, bw);
        if (in.nic_cap) {
          const double per_sample_s = transfer_time(profile.cut_bytes(part.blocks.end), bw).to_s();
          per_vgpu = std::min(per_vgpu, 1.0 / (per_sample_s * part.vgpu_divisor * type->gpus_per_server));
        }
      }
      if (d > 0 && in.nic_cap) {
        const auto* prev = type_of(in, pipe.partitions[d - 1].gpu);
        const double bw = std::min(type->nic_gbps, prev ? prev->nic_gbps : type->nic_gbps);
        const double per_sample_s = transfer_time(profile.cut_bytes(part.blocks.begin), bw).to_s();
        per_vgpu = std::min(per_vgpu, 1.0 / (per_sample_s * part.vgpu_divisor * type->gpus_per_server));
      }
      if (transfer != part.transfer) fail(at, "transfer time differs from the cut bytes and NIC speed");
      latency += l + transfer;
      if (part.gpus * part.vgpu_divisor < part.vgpus) fail(at, "holds more vGPUs than its whole GPUs provide");
      if (part.vgpus < 1) fail(at, "has no vGPUs");
      gpus_used[part.gpu] += part.gpus;
      const double cap = part.vgpus * per_vgpu;
      if (std::fabs(cap - part.capacity_rps) > 1e-6 * std::max(1.0, cap))
        fail(at, "capacity differs from the recomputation");
      capacity = std::min(capacity, cap);
    }
    if (expect_begin != profile.blocks()) fail(where, "does not end at the model's last block");
    if (latency != pipe.latency) fail(where, "latency is not the sum of its partitions and transfers");
    const auto planning_slo = model->slo - Duration::from_us(std::round(in.slo_margin * model->slo.to_us()));
    if (pipe.batch_forming < Duration()) fail(where, "negative batch-forming time");
    if (latency + pipe.batch_forming > planning_slo) {
      std::ostringstream o;
      o << "latency " << (latency + pipe.batch_forming).to_us() << " us exceeds the planning SLO "
        << planning_slo.to_us() << " us";
      fail(where, o.str());
    }
    if (pipe.assigned_rps > capacity * (1 + 1e-9) + 1e-9)
      fail(where, "assigned more throughput than its partitions carry");
    model_rate[pipe.model] += pipe.assigned_rps;
  }
  for (const auto& t : in.gpus)
    if (gpus_used[t.gpu] > t.count)
      fail(t.gpu, "uses " + std::to_string(gpus_used[t.gpu]) + " GPUs of " + std::to_string(t.count));
  for (const auto& m : plan.models)
    if (std::fabs(model_rate[m.name] - m.throughput_rps) > 1e-6 * std::max(1.0, m.throughput_rps))
      fail(m.name, "throughput is not the sum of its pipelines");
  return problems;
}

}  // namespace servescope::test
