#include "engine/ppipe/reference_case.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/core/error.h"
#include "model/gpu/gpu_catalog.h"
#include "model/import/ppipe_import.h"

namespace servescope::engine {

std::vector<PlannerModel> ReferenceCase::planner_models() const {
  std::vector<PlannerModel> out;
  for (std::size_t m = 0; m < profiles.size(); ++m)
    out.push_back({profiles[m], Duration::from_us(reference[m].slo_us), weights[m]});
  return out;
}

double ReferenceCase::reference_normalised_rps() const {
  double z = std::numeric_limits<double>::infinity();
  for (std::size_t m = 0; m < reference.size(); ++m)
    z = std::min(z, reference[m].xput_rps / weights[m]);
  return z;
}

std::vector<int> ReferenceCase::reference_whole_gpus_per_partition() const {
  const auto& catalog = GpuCatalog::builtin();
  std::vector<int> need(gpus.size(), 0);
  for (const auto& model : reference)
    for (const auto& pipeline : model.pipelines)
      for (const auto& part : pipeline.partitions) {
        const auto id = catalog.canonical_id(part.gpu);
        const auto it = std::ranges::find_if(gpus, [&](const PlannerGpuType& g) { return g.gpu == id; });
        if (it == gpus.end())
          throw InputError(name, "pipelines", "a partition on " + part.gpu + ", not one of the cluster's GPU types");
        need[static_cast<std::size_t>(it - gpus.begin())] += whole_gpus(part);
      }
  return need;
}

bool ReferenceCase::reference_fits_whole_gpus() const {
  const auto need = reference_whole_gpus_per_partition();
  for (std::size_t k = 0; k < gpus.size(); ++k)
    if (need[k] > gpus[k].count) return false;
  return true;
}

namespace {
constexpr double kCountTolerance = 1e-4;
}

int whole_gpus(const ReferencePartition& partition) {
  return static_cast<int>(std::ceil(partition.num_gpu - kCountTolerance));
}

bool fractional_gpus(const ReferencePartition& partition) {
  return std::abs(partition.num_gpu - std::round(partition.num_gpu)) > kCountTolerance;
}

double normalised_throughput_rps(const PipelinePlan& plan) {
  double z = std::numeric_limits<double>::infinity();
  for (const auto& m : plan.models)
    z = std::min(z, m.throughput_rps / m.weight);
  return plan.models.empty() ? 0 : z;
}

ReferenceCase load_reference_case(const std::filesystem::path& data_dir, const std::filesystem::path& plan_file,
                                  ReferenceProfiles& profiles) {
  ReferenceCase c;
  c.name = plan_file.filename().string();
  c.naming = parse_ppipe_reference_plan_name(c.name);
  c.reference = load_ppipe_reference_plan(plan_file.string());
  const auto bad = [&](const std::string& why) { return InputError(plan_file.string(), "$", why); };
  if (c.reference.empty()) throw bad("the plan lists no models");
  const auto& first = c.reference.front();
  if (c.naming.gpu_counts.size() != first.gpu_types.size())
    throw bad("the file name gives " + std::to_string(c.naming.gpu_counts.size()) + " GPU counts for " +
              std::to_string(first.gpu_types.size()) + " GPU types");
  if (!c.naming.weights.empty() && c.naming.weights.size() != c.reference.size())
    throw bad("the file name gives " + std::to_string(c.naming.weights.size()) + " weights for " +
              std::to_string(c.reference.size()) + " models");
  const auto& catalog = GpuCatalog::builtin();
  int max_levels = 1;
  for (std::size_t k = 0; k < first.gpu_types.size(); ++k) {
    c.gpus.push_back(
        {catalog.canonical_id(first.gpu_types[k]), c.naming.gpu_counts[k], first.gpus_per_server[k], first.bw_gbps});
    max_levels = std::max(max_levels, first.mps_levels[k]);
  }
  for (std::size_t m = 0; m < c.reference.size(); ++m) {
    const auto& r = c.reference[m];
    auto it = profiles.find(r.dnn);
    if (it == profiles.end()) it = profiles.emplace(r.dnn, import_ppipe_model(data_dir, r.dnn, catalog)).first;
    c.profiles.push_back(&it->second);
    c.weights.push_back(c.naming.weights.empty() ? 1.0 : c.naming.weights[m]);
  }
  // Every model of a file was planned with the same margin (round(μ·SLO) per model) and shape.
  c.options.slo_margin = first.margin_us / first.slo_us;
  c.options.max_partitions = std::clamp(first.max_partitions, 1, 3);
  c.options.objective = PpipeObjective::MaxMin;  // the authors' objective, which their plans reach
  for (int v = 1; v <= max_levels; ++v)
    c.options.vgpu_divisors.push_back(v);
  return c;
}

std::vector<std::filesystem::path> reference_plan_files(const std::filesystem::path& data_dir,
                                                        const std::string& folder, const std::string& system) {
  std::vector<std::filesystem::path> out;
  const auto dir = data_dir / "plans" / folder;
  if (!std::filesystem::is_directory(dir)) return out;
  const auto suffix = "_" + system + ".json";
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    const auto name = f.path().filename().string();
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(f.path());
  }
  std::ranges::sort(out);
  return out;
}

}  // namespace servescope::engine
