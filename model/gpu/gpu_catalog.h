// GPU types by their public spec figures. Every cluster node and every profile names a GPU
// type by catalog id; aliases let importers accept the names other tools write ("2080ti",
// "TITAN_X_(Pascal)"). A scenario may add its own types on top of the built-in catalog.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace servescope {

struct GpuSpec {
  std::string id;  // canonical, e.g. "V100"
  std::string name;
  std::string architecture;
  std::vector<std::string> aliases;
  int sm_count = 0;
  double fp32_tflops = 0;
  double fp16_tflops = 0;  // dense tensor-core peak where present, else the shader rate
  double memory_gib = 0;
  double memory_bandwidth_gbs = 0;  // GB/s
  bool mps = false;                 // supports MPS active-thread percentages (Volta and later)
  double price_per_hour = 0;        // a machine with one such GPU, for the cost planners; 0: unknown

  bool operator==(const GpuSpec&) const = default;
};

class GpuCatalog {
 public:
  // The catalog compiled from resources/catalog/gpus.json.
  static const GpuCatalog& builtin();

  std::span<const GpuSpec> gpus() const { return gpus_; }
  // By id or alias, case-insensitively; nullptr when unknown.
  const GpuSpec* find(std::string_view id_or_alias) const;
  // The canonical id for a name, or throws QueryError listing the known ids.
  const std::string& canonical_id(std::string_view id_or_alias) const;
  // Adds a type, or replaces the one with the same id.
  void add_or_replace(GpuSpec spec);
  std::string known_ids() const;

  bool operator==(const GpuCatalog&) const = default;

 private:
  std::vector<GpuSpec> gpus_;
};

}  // namespace servescope
