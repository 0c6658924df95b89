// Reads the PPipe artifact's profiles (seed 000; github.com/JonnyKong/PPipe, data/): per-block
// TensorRT timings `models/block-timing-tf32/{dnn}-{GPU}-{k}.csv` (rows = blocks, columns =
// batch 1..B, k MPS processes sharing the GPU), the bytes per sample at each block boundary
// `prepartition_mappings/{dnn}/contraction_trans-size_*.csv`, and, when present, the whole-model
// L4 timings that define the paper's SLO (5 × mean L4 latency at batch 1).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "model/gpu/gpu_catalog.h"
#include "model/profile/model_profile.h"

namespace servescope {

struct PpipeImportOptions {
  // Which contraction_trans-size_*.csv to use when a model has several (the part after
  // "contraction_trans-size_", e.g. "ilpprepart10-0.5-2.0"); empty: require exactly one.
  std::string prepartition;
  double slo_multiplier = 5.0;  // SLO = multiplier × mean whole-model L4 latency at batch 1
};

// `data_dir` is the artifact's data/ folder (or the repository root that contains it).
std::filesystem::path ppipe_data_dir(const std::filesystem::path& dir);
std::vector<std::string> list_ppipe_models(const std::filesystem::path& dir);
ModelProfile import_ppipe_model(const std::filesystem::path& dir, const std::string& dnn, const GpuCatalog& catalog,
                                const PpipeImportOptions& options = {});
ProfileSet import_ppipe(const std::filesystem::path& dir, const std::vector<std::string>& dnns,
                        const GpuCatalog& catalog, const PpipeImportOptions& options = {});

}  // namespace servescope
