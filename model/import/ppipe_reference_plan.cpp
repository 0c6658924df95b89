#include "model/import/ppipe_reference_plan.h"

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
    const auto gpus = config.at("gpu_name_arr");
    for (std::size_t g = 0; g < gpus.size(); ++g)
      plan.gpu_types.push_back(gpus[g].as_string());
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

}  // namespace servescope
