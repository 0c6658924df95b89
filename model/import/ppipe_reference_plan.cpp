#include "model/import/ppipe_reference_plan.h"

#include <sstream>

#include "model/core/error.h"
#include "model/core/text.h"
#include "model/io/file_io.h"
#include "model/io/json_cursor.h"

namespace servescope {

std::vector<ReferenceModelPlan> load_ppipe_reference_plan(const std::string& path) {
  const auto json = parse_json_text(read_text_file(path), path);
  const JsonCursor root(json, path);
  std::vector<ReferenceModelPlan> out;
  for (std::size_t m = 0; m < root.size(); ++m) {
    const auto model = root[m];
    const auto config = model.at("config");
    ReferenceModelPlan plan;
    plan.dnn = config.at("dnn_name").as_string();
    plan.xput_rps = model.at("xput").as_double(0, 1e9);
    plan.slo_us = model.at("sla").as_double(0, 1e12);
    plan.bw_gbps = config.at("bw_gbps").as_double(1e-6, 1e6);
    if (auto rt = model.find("runtime")) plan.runtime_s = rt->as_double(0, 1e9);
    plan.margin_us = config.double_or("hist_adjustment", 0, 0, 1e12);
    plan.max_partitions = static_cast<int>(config.int_or("max_num_parts", 1, 1, 16));
    const auto gpus = config.at("gpu_name_arr");
    const auto per_server = config.at("num_gpu_per_server_arr");
    const auto levels = config.at("num_mps_levels");
    if (per_server.size() != gpus.size()) per_server.fail("expected one entry per GPU type");
    if (levels.size() != gpus.size()) levels.fail("expected one entry per GPU type");
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      plan.gpu_types.push_back(gpus[g].as_string());
      plan.gpus_per_server.push_back(static_cast<int>(per_server[g].as_int(1, 1024)));
      plan.mps_levels.push_back(static_cast<int>(levels[g].as_int(1, 64)));
    }
    const auto pipelines = model.at("pipelines");
    for (std::size_t l = 0; l < pipelines.size(); ++l) {
      ReferencePipeline pipe;
      pipe.xput_rps = pipelines[l].at("xput").as_double(0, 1e9);
      const auto parts = pipelines[l].at("partitions");
      for (std::size_t d = 0; d < parts.size(); ++d) {
        const auto p = parts[d];
        ReferencePartition part;
        part.dnn = p.at("dnn").as_string();
        part.gpu = p.at("gpu").as_string();
        part.mps_divisor = static_cast<int>(p.at("mps").as_int(0, 63)) + 1;
        part.batch = static_cast<int>(p.at("bs").as_int(1, 4096));
        const auto layers = p.at("layers");
        if (layers.size() != 2) layers.fail("expected [begin, end]");
        part.blocks =
            BlockRange{static_cast<int>(layers[0].as_int(0, 1024)), static_cast<int>(layers[1].as_int(1, 1024))};
        part.num_gpu = p.at("num_gpu").as_double(0, 1e6);
        part.lat_infer_us = p.at("lat_infer").as_double(0, 1e12);
        part.lat_trans_us = p.at("lat_trans").as_double(0, 1e12);
        part.xput_rps = p.double_or("xput", 0, 0, 1e12);  // absent in some baseline plans
        pipe.partitions.push_back(std::move(part));
      }
      plan.pipelines.push_back(std::move(pipe));
    }
    out.push_back(std::move(plan));
  }
  return out;
}

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, sep);)
    out.push_back(item);
  return out;
}

}  // namespace

ReferencePlanName parse_ppipe_reference_plan_name(const std::string& filename) {
  const auto fail = [&](const std::string& why) {
    return InputError(filename, "file name", "not a PPipe plan file name: " + why);
  };
  std::string stem = filename.substr(filename.find_last_of('/') + 1);
  if (stem.size() < 6 || stem.substr(stem.size() - 5) != ".json") throw fail("no .json");
  stem.resize(stem.size() - 5);
  // Model names hold '_' themselves, so read the fixed fields from the right.
  const auto fields = split(stem, '_');
  if (fields.size() < 6) throw fail("too few fields");
  ReferencePlanName out;
  const auto at = [&](std::size_t from_right) -> const std::string& { return fields[fields.size() - from_right]; };
  out.system = at(1);
  if (out.system != "bl" && out.system != "v4" && out.system != "dart-r") throw fail("unknown system " + out.system);
  if (at(2).rfind("sla-multiplier-", 0) != 0 || at(3).rfind("bw-gbps-", 0) != 0)
    throw fail("no bandwidth or SLO field");
  for (const auto& n : split(at(4), '-')) {
    const auto v = parse_integer(n);
    if (!v || *v < 0) throw fail("GPU counts '" + at(4) + "'");
    out.gpu_counts.push_back(static_cast<int>(*v));
  }
  // Weights, when present, are the field before the GPU pair: numbers only.
  const auto weights = split(at(6), '-');
  bool numeric = !weights.empty();
  std::vector<double> w;
  for (const auto& x : weights) {
    const auto v = parse_finite_double(x);
    numeric = numeric && v && *v > 0;
    if (v) w.push_back(*v);
  }
  if (numeric) out.weights = w;
  return out;
}

}  // namespace servescope
