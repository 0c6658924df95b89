#include "model/core/error.h"
#include "model/io/model_json.h"

namespace servescope {

GpuSpec gpu_spec_from_json(const JsonCursor& c, const GpuSpec* base) {
  c.expect_object({"id", "name", "architecture", "aliases", "sm_count", "fp32_tflops", "fp16_tflops", "memory_gib",
                   "memory_bandwidth_gbs", "mps", "price_per_hour"});
  GpuSpec g = base ? *base : GpuSpec{};
  g.id = c.at("id").as_string();
  g.name = c.string_or("name", base ? base->name : g.id);
  g.architecture = c.string_or("architecture", g.architecture);
  if (auto aliases = c.find("aliases")) {
    g.aliases.clear();
    for (std::size_t i = 0; i < aliases->size(); ++i)
      g.aliases.push_back((*aliases)[i].as_string());
  }
  // Only id is required: an absent field keeps the base's value, else stays unknown (0, or
  // false for mps).
  if (auto v = c.find("sm_count")) g.sm_count = static_cast<int>(v->as_int(1, 100'000));
  if (auto v = c.find("fp32_tflops")) g.fp32_tflops = v->as_double(0.001, 1e6);
  if (auto v = c.find("fp16_tflops")) g.fp16_tflops = v->as_double(0.001, 1e6);
  if (auto v = c.find("memory_gib")) g.memory_gib = v->as_double(0.001, 1e6);
  if (auto v = c.find("memory_bandwidth_gbs")) g.memory_bandwidth_gbs = v->as_double(0.001, 1e7);
  if (auto v = c.find("mps")) g.mps = v->as_bool();
  if (auto price = c.find("price_per_hour")) g.price_per_hour = price->as_double(0, 1e6);
  return g;
}

GpuCatalog gpu_catalog_from_json(const JsonCursor& root) {
  expect_document_header(root, "gpu-catalog");
  root.expect_object({"schema_version", "kind", "name", "source", "gpus"});
  const auto gpus = root.at("gpus");
  GpuCatalog catalog;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    auto spec = gpu_spec_from_json(gpus[i]);
    if (catalog.find(spec.id) && catalog.find(spec.id)->id == spec.id)
      gpus[i].at("id").fail("duplicate GPU id '" + spec.id + "'");
    catalog.add_or_replace(std::move(spec));
  }
  return catalog;
}

GpuCatalog gpu_catalog_from_json_text(std::string_view text, const std::string& file) {
  const auto json = parse_json_text(text, file);
  return gpu_catalog_from_json(JsonCursor(json, file));
}

// Only what is known, so an entry reads back as it was written: name when it is not the id,
// figures when above 0, mps when true, the price when set.
nlohmann::json to_json(const GpuSpec& g) {
  nlohmann::json j = {{"id", g.id}};
  if (g.name != g.id) j["name"] = g.name;
  if (!g.architecture.empty()) j["architecture"] = g.architecture;
  if (!g.aliases.empty()) j["aliases"] = g.aliases;
  if (g.sm_count > 0) j["sm_count"] = g.sm_count;
  if (g.fp32_tflops > 0) j["fp32_tflops"] = g.fp32_tflops;
  if (g.fp16_tflops > 0) j["fp16_tflops"] = g.fp16_tflops;
  if (g.memory_gib > 0) j["memory_gib"] = g.memory_gib;
  if (g.memory_bandwidth_gbs > 0) j["memory_bandwidth_gbs"] = g.memory_bandwidth_gbs;
  if (g.mps) j["mps"] = true;
  if (g.price_per_hour > 0) j["price_per_hour"] = g.price_per_hour;
  return j;
}

nlohmann::json to_json(const GpuCatalog& c, const std::string& name) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : c.gpus())
    gpus.push_back(to_json(g));
  return {{"schema_version", kSchemaVersion}, {"kind", "gpu-catalog"}, {"name", name}, {"gpus", gpus}};
}

nlohmann::json us_to_json(Duration d) {
  if (d.count_ns() % 1000 == 0) return d.count_ns() / 1000;
  return d.to_us();
}

}  // namespace servescope
