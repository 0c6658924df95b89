#include "engine/ppipe/reference_plan_import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>

#include "engine/ppipe/reference_case.h"
#include "model/core/error.h"
#include "model/core/text.h"
#include "model/gpu/gpu_catalog.h"

namespace servescope::engine {
namespace {

Cluster cluster_of(const ReferenceCase& c) {
  Cluster cluster;
  cluster.name = c.name;
  cluster.description = "the cluster of the PPipe authors' plan " + c.name;
  for (const auto& g : c.gpus) {
    // Full servers of the type, then one with the rest (3.5 servers of four L4s: 3 and 1 of two).
    const int per_server = std::max(1, g.gpus_per_server);
    const int full = g.count / per_server, rest = g.count % per_server;
    std::string name = g.gpu;
    std::ranges::transform(name, name.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (full > 0) cluster.nodes.push_back({name, g.gpu, per_server, full, g.nic_gbps, g.nic_gbps, std::nullopt});
    if (rest > 0) cluster.nodes.push_back({name + "-rest", g.gpu, rest, 1, g.nic_gbps, g.nic_gbps, std::nullopt});
  }
  return cluster;
}

}  // namespace

ImportedReferencePlan import_reference_plan(const std::filesystem::path& data_dir,
                                            const std::filesystem::path& plan_file) {
  ReferenceProfiles profiles;
  const auto c = load_reference_case(data_dir, plan_file, profiles);
  const auto& catalog = GpuCatalog::builtin();
  const std::string file = plan_file.string();
  ImportedReferencePlan out;
  auto& plan = out.plan;
  plan.system = c.naming.system == "v4" ? "ppipe" : c.naming.system == "bl" ? "np" : c.naming.system;
  plan.solve.status = "imported";
  plan.solve.objective_kind = c.reference.size() > 1 ? "max-min" : "max-throughput";
  plan.notes.push_back("imported from the PPipe authors' plan " + c.name);
  Workload workload{"plan-load", 0, PoissonArrivals{}, {}, Popularity::Explicit, 0.9};
  for (std::size_t m = 0; m < c.reference.size(); ++m) {
    const auto& r = c.reference[m];
    const auto& profile = *c.profiles[m];
    const auto slo = Duration::from_us(r.slo_us);
    plan.models.push_back({r.dnn, slo, Duration::from_us(r.slo_us - r.margin_us), c.weights[m], r.xput_rps});
    for (std::size_t p = 0; p < r.pipelines.size(); ++p) {
      const auto& rp = r.pipelines[p];
      if (rp.partitions.empty())
        throw InputError(file, "$[" + std::to_string(m) + "].pipelines[" + std::to_string(p) + "]",
                         "a pipeline without partitions");
      PlannedPipeline pipeline;
      pipeline.model = r.dnn;
      pipeline.batch = rp.partitions.front().batch;
      pipeline.assigned_rps = rp.xput_rps;
      pipeline.capacity_rps = rp.xput_rps;
      for (std::size_t k = 0; k < rp.partitions.size(); ++k) {
        const auto& part = rp.partitions[k];
        PlannedPartition planned;
        planned.gpu = catalog.canonical_id(part.gpu);
        planned.vgpu_divisor = part.mps_divisor;
        planned.blocks = part.blocks;
        planned.vgpus = std::max(1, static_cast<int>(std::lround(part.num_gpu * part.mps_divisor)));
        planned.gpus = whole_gpus(part);
        if (fractional_gpus(part))
          out.notes.push_back(r.dnn + ": a partition of " + format_number(part.num_gpu) + " " + planned.gpu +
                              " GPUs: its " + std::to_string(planned.vgpus) + " vGPUs of 1/" +
                              std::to_string(part.mps_divisor) + " may share a GPU with another partition");
        planned.latency = Duration::from_us(part.lat_infer_us);
        planned.transfer = k + 1 < rp.partitions.size() ? Duration::from_us(part.lat_trans_us) : Duration();
        planned.transfer_bytes =
            k + 1 < rp.partitions.size() ? profile.cut_bytes(part.blocks.end) * pipeline.batch : std::int64_t{0};
        planned.capacity_rps = part.xput_rps;
        pipeline.latency += planned.latency + planned.transfer;
        pipeline.capacity_rps = std::min(pipeline.capacity_rps, part.xput_rps > 0 ? part.xput_rps : rp.xput_rps);
        pipeline.partitions.push_back(planned);
      }
      plan.pipelines.push_back(std::move(pipeline));
    }
    out.scenario.profiles.models.push_back(profile);
    workload.targets.push_back({TargetKind::Model, r.dnn, r.xput_rps, slo});
    workload.rate_rps += r.xput_rps;
  }
  out.scenario.name = c.name;
  out.scenario.description =
      "The PPipe authors' plan " + c.name + " at load factor 1 (servescope-cli import ppipe-plan)";
  out.scenario.cluster = cluster_of(c);
  out.scenario.workloads.push_back(std::move(workload));
  std::ranges::copy(out.notes, std::back_inserter(plan.notes));
  return out;
}

std::optional<std::filesystem::path> reference_data_dir(const std::filesystem::path& plan_file) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(plan_file, ec);
  if (ec) return std::nullopt;
  for (auto dir = absolute.lexically_normal().parent_path(); !dir.empty(); dir = dir.parent_path()) {
    std::error_code absent;  // a folder without them is no error, only not the one
    if (std::filesystem::is_directory(dir / "models", absent) && std::filesystem::is_directory(dir / "plans", absent))
      return dir;
    if (dir == dir.root_path()) break;
  }
  return std::nullopt;
}

}  // namespace servescope::engine
