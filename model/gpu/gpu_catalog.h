// GPU types by their public spec figures. Every cluster node and every profile names a GPU
// type by catalog id; aliases let importers accept the names other tools write ("2080ti",
// "TITAN_X_(Pascal)"). A scenario may add its own types on top of the built-in catalog.
//
// Only `id` is required: a type that exists to carry a price for the cost planners may leave
// every datasheet figure out. An absent figure is 0 (unknown) and `mps` false; what needs a
// figure asks for it with require_figures(), which names the type and the missing field.
#pragma once

#include <initializer_list>
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
  // Datasheet figures; 0: unknown (the entry left it out).
  int sm_count = 0;
  double fp32_tflops = 0;
  double fp16_tflops = 0;  // dense tensor-core peak where present, else the shader rate
  double memory_gib = 0;
  double memory_bandwidth_gbs = 0;  // GB/s
  bool mps = false;                 // supports MPS active-thread percentages (Volta and later); absent: false
  double price_per_hour = 0;        // a machine with one such GPU, for the cost planners; 0: unknown

  bool operator==(const GpuSpec&) const = default;
};

// The datasheet figures of a GpuSpec that may be unknown, by their JSON field names.
enum class GpuFigure { SmCount, Fp32Tflops, Fp16Tflops, MemoryGib, MemoryBandwidthGbs };

std::string_view field_name(GpuFigure figure);  // "sm_count", "fp32_tflops", …
bool known(const GpuSpec& gpu, GpuFigure figure);
// Throws QueryError when any of `figures` is unknown, naming the type, every missing field,
// what needs them (`purpose`, e.g. "the roofline estimator") and where to add them.
void require_figures(const GpuSpec& gpu, std::initializer_list<GpuFigure> figures, std::string_view purpose);

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
