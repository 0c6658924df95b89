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

std::string GpuCatalog::known_ids() const {
  std::string out;
  for (const auto& g : gpus_)
    out += (out.empty() ? "" : ", ") + g.id;
  return out;
}

}  // namespace servescope
