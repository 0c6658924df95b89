// What the PPipe benchmarks share about the artifact's data (../shared/data/PPipe/data, or
// $SERVESCOPE_SHARED_DATA/PPipe/data): where it is, and the short names their tables print.
// For programs built with servescope_bench(... SHARED_DATA).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/ppipe/planner_input.h"

namespace servescope::bench {

inline std::filesystem::path ppipe_data_dir() {
  if (const char* env = std::getenv("SERVESCOPE_SHARED_DATA")) return std::filesystem::path(env) / "PPipe/data";
  return std::filesystem::path(SERVESCOPE_SHARED_DATA_DIR) / "PPipe/data";
}

// The digest's name (§6.1) of a case's cluster from its two GPU types: "hc1-l" … "hc4-l", also
// the built-in cluster files' names.
inline std::string reference_cluster(const std::vector<engine::PlannerGpuType>& gpus) {
  const auto pair = gpus[0].gpu + "-" + gpus[1].gpu;
  if (pair == "L4-P4") return "hc1-l";
  if (pair == "L4-T4") return "hc2-l";
  if (pair == "V100-P4") return "hc3-l";
  return "hc4-l";
}

// "colorization" for "colorization-v2", "atss" for "atss_r101_fpn_1x_coco".
inline std::string short_model_name(const std::string& name) {
  return name.substr(0, name.find_first_of("_-"));
}

}  // namespace servescope::bench
