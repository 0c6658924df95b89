#include "model/core/error.h"
#include "model/io/model_json.h"

namespace servescope {

GpuSpec gpu_spec_from_json(const JsonCursor& c) {
  c.expect_object({"id", "name", "architecture", "aliases", "sm_count", "fp32_tflops", "fp16_tflops", "memory_gib",
                   "memory_bandwidth_gbs", "mps", "price_per_hour"});
  GpuSpec g;
  g.id = c.at("id").as_string();
  g.name = c.string_or("name", g.id);
  g.architecture = c.string_or("architecture", "");
  if (auto aliases = c.find("aliases"))
    for (std::size_t i = 0; i < aliases->size(); ++i)
      g.aliases.push_back((*aliases)[i].as_string());
  g.sm_count = static_cast<int>(c.at("sm_count").as_int(1, 100'000));
  g.fp32_tflops = c.at("fp32_tflops").as_double(0.001, 1e6);
  g.fp16_tflops = c.at("fp16_tflops").as_double(0.001, 1e6);
  g.memory_gib = c.at("memory_gib").as_double(0.001, 1e6);
  g.memory_bandwidth_gbs = c.at("memory_bandwidth_gbs").as_double(0.001, 1e7);
  g.mps = c.at("mps").as_bool();
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

nlohmann::json to_json(const GpuSpec& g) {
  nlohmann::json j = {{"id", g.id},
                      {"name", g.name},
                      {"architecture", g.architecture},
                      {"aliases", g.aliases},
                      {"sm_count", g.sm_count},
                      {"fp32_tflops", g.fp32_tflops},
                      {"fp16_tflops", g.fp16_tflops},
                      {"memory_gib", g.memory_gib},
                      {"memory_bandwidth_gbs", g.memory_bandwidth_gbs},
                      {"mps", g.mps}};
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
