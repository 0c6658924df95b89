#include "engine/estimate/profile_estimator.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "engine/estimate/cnn_architectures.h"
#include "model/core/error.h"
#include "model/core/text.h"

namespace servescope::engine {
namespace {

// Whole microseconds, at least 1 µs: the artifact's integer profiles and its block-latency floor.
// Rounding is monotone, so curves that grow with batch still do.
Duration whole_us(double us) {
  return Duration::from_us(std::max(1.0, std::round(us)));
}

double sum(const std::vector<double>& v, int begin, int end) {
  return std::accumulate(v.begin() + begin, v.begin() + end, 0.0);
}

BlockTable block_table(const LayerGraph& graph, const BlockBoundaries& cuts, const GpuSpec& gpu, int divisor,
                       const EstimateOptions& options) {
  const auto batches = batch_range(estimated_max_batch(divisor));
  const auto blocks = cuts.size() - 1;
  std::vector<std::vector<Duration>> rows(blocks);
  for (const int b : batches) {
    const auto layers = layer_latencies_us(graph, gpu, divisor, b, options);
    for (std::size_t n = 0; n < blocks; ++n)
      rows[n].push_back(whole_us(sum(layers, cuts[n], cuts[n + 1])));
  }
  BlockTable table{gpu.id, GpuShare::mps(divisor), {}, {}, {}};
  for (auto& row : rows) {
    int raised = 0;
    table.blocks.emplace_back(batches, std::move(row), &raised);
    if (raised > 0) throw std::logic_error("estimated latency decreased with batch size on " + gpu.id);
  }
  return table;
}

}  // namespace

std::vector<int> estimated_divisors(const GpuSpec& gpu) {
  return gpu.mps ? std::vector<int>{1, 2, 3, 4} : std::vector<int>{1};
}

int estimated_max_batch(int divisor) {
  return divisor <= 1 ? 8 : divisor == 2 ? 4 : 2;
}

std::vector<double> layer_latencies_us(const LayerGraph& graph, const GpuSpec& gpu, int divisor, int batch,
                                       const EstimateOptions& options) {
  const auto rates = device_rates(gpu, options.precision, divisor, options.factors);
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(graph.size()));
  for (int l = 0; l < graph.size(); ++l)
    out.push_back(layer_time(graph, l, batch, rates, options.factors).total_us);
  return out;
}

EstimatedModel estimate_model(const LayerGraph& graph, const std::string& description, const std::vector<GpuSpec>& gpus,
                              const GpuSpec& reference, const EstimateOptions& options) {
  const auto reference_layers = layer_latencies_us(graph, reference, 1, 1, options);
  EstimatedModel out;
  out.boundaries = greedy_prepartition(reference_layers, options.blocks);
  auto& p = out.profile;
  p.name = graph.name();
  p.description = description + "; blocks start at";
  for (std::size_t j = 0; j + 1 < out.boundaries.size(); ++j)
    p.description += (j == 0 ? " " : ", ") + graph.layers()[static_cast<std::size_t>(out.boundaries[j])].name;
  p.form = ProfileForm::Blocks;
  p.block_count = options.blocks;
  const auto live = graph.live_elements();
  for (std::size_t j = 1; j + 1 < out.boundaries.size(); ++j)
    p.boundary_bytes.push_back(bytes(live[static_cast<std::size_t>(out.boundaries[j])], kCutElementBytes));
  p.default_slo = whole_us(options.slo_multiplier * sum(reference_layers, 0, graph.size()));
  for (const auto& gpu : gpus)
    for (const int v : estimated_divisors(gpu))
      p.block_tables.push_back(block_table(graph, out.boundaries, gpu, v, options));
  return out;
}

ProfileSet estimate_profiles(const std::vector<std::string>& architectures, const std::vector<std::string>& gpus,
                             const GpuCatalog& catalog, const EstimateOptions& options) {
  if (architectures.empty()) throw QueryError("no architecture to estimate (known: " + known_architectures() + ")");
  if (gpus.empty()) throw QueryError("no GPU type to estimate for (known: " + catalog.known_ids() + ")");
  std::vector<GpuSpec> specs;
  for (const auto& name : gpus) {
    const auto& id = catalog.canonical_id(name);
    if (std::ranges::find(specs, id, &GpuSpec::id) != specs.end())
      throw QueryError("GPU type " + id + " is listed twice");
    specs.push_back(*catalog.find(id));
  }
  const auto* reference_spec = catalog.find(options.reference_gpu);
  if (!reference_spec)
    throw QueryError("unknown reference GPU type " + quote_for_message(options.reference_gpu) +
                     " (known: " + catalog.known_ids() + ")");
  const auto& reference = *reference_spec;
  ProfileSet set;
  set.name = "Estimated CNN block profiles";
  set.source =
      "ServeScope profile estimator (docs/estimator.md): a roofline over public layer shapes and the GPU "
      "catalog's datasheet figures, not measurements; " +
      std::string(to_string(options.precision)) + " (fp32 on GPUs without tensor cores), " +
      std::to_string(options.blocks) + " blocks by greedy pre-partitioning on " + reference.id +
      ", default SLO = " + format_number(options.slo_multiplier) + " x whole-model " + reference.id +
      " latency at batch 1";
  for (const auto& name : architectures) {
    const auto& arch = find_architecture(name);
    if (set.find(arch.id)) throw QueryError("architecture " + arch.id + " is listed twice");
    const auto graph = arch.build();
    const auto description = arch.description + "; " +
                             format_number(std::round(graph.multiply_accumulates() / 1e7) / 100) +
                             " GMACs per sample; roofline estimate";
    set.models.push_back(estimate_model(graph, description, specs, reference, options).profile);
  }
  return set;
}

}  // namespace servescope::engine
