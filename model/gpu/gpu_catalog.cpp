#include "model/gpu/gpu_catalog.h"

#include <algorithm>

#include "model/core/error.h"
#include "model/core/text.h"
#include "model/io/model_json.h"
#include "resources/builtin_resources.h"

namespace servescope {

const GpuCatalog& GpuCatalog::builtin() {
  static const GpuCatalog catalog = [] {
    const auto text = resources::find_builtin_resource("catalog/gpus.json");
    if (!text) throw Error("the built-in GPU catalog is missing from this build");
    return gpu_catalog_from_json_text(*text, "builtin:catalog/gpus.json");
  }();
  return catalog;
}

const GpuSpec* GpuCatalog::find(std::string_view id_or_alias) const {
  for (const auto& g : gpus_)
    if (iequals(g.id, id_or_alias)) return &g;
  for (const auto& g : gpus_)
    for (const auto& a : g.aliases)
      if (iequals(a, id_or_alias)) return &g;
  return nullptr;
}

const std::string& GpuCatalog::canonical_id(std::string_view id_or_alias) const {
  if (const auto* g = find(id_or_alias)) return g->id;
  throw QueryError("unknown GPU type " + quote_for_message(id_or_alias) + " (known: " + known_ids() + ")");
}

void GpuCatalog::add_or_replace(GpuSpec spec) {
  auto it = std::ranges::find(gpus_, spec.id, &GpuSpec::id);
  if (it != gpus_.end())
    *it = std::move(spec);
  else
    gpus_.push_back(std::move(spec));
}

std::string_view field_name(GpuFigure figure) {
  switch (figure) {
    case GpuFigure::SmCount:
      return "sm_count";
    case GpuFigure::Fp32Tflops:
      return "fp32_tflops";
    case GpuFigure::Fp16Tflops:
      return "fp16_tflops";
    case GpuFigure::MemoryGib:
      return "memory_gib";
    case GpuFigure::MemoryBandwidthGbs:
      return "memory_bandwidth_gbs";
  }
  return "?";
}

bool known(const GpuSpec& gpu, GpuFigure figure) {
  switch (figure) {
    case GpuFigure::SmCount:
      return gpu.sm_count > 0;
    case GpuFigure::Fp32Tflops:
      return gpu.fp32_tflops > 0;
    case GpuFigure::Fp16Tflops:
      return gpu.fp16_tflops > 0;
    case GpuFigure::MemoryGib:
      return gpu.memory_gib > 0;
    case GpuFigure::MemoryBandwidthGbs:
      return gpu.memory_bandwidth_gbs > 0;
  }
  return false;
}

void require_figures(const GpuSpec& gpu, std::initializer_list<GpuFigure> figures, std::string_view purpose) {
  std::vector<std::string_view> missing;
  for (const auto f : figures)
    if (!known(gpu, f)) missing.push_back(field_name(f));
  if (missing.empty()) return;
  std::string fields;
  for (std::size_t i = 0; i < missing.size(); ++i)
    fields += std::string(i == 0 ? "" : i + 1 == missing.size() ? " and " : ", ") + std::string(missing[i]);
  throw QueryError("GPU type " + quote_for_message(gpu.id) + " has no " + fields + ", which " + std::string(purpose) +
                   " needs: add " + (missing.size() == 1 ? "it" : "them") + " to the scenario's gpu_types entry for " +
                   quote_for_message(gpu.id));
}

std::string GpuCatalog::known_ids() const {
  std::string out;
  for (const auto& g : gpus_)
    out += (out.empty() ? "" : ", ") + g.id;
  return out;
}

}  // namespace servescope
