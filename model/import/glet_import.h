// Reads the gpu-let artifacts (seed 003): Nsight utilisation per model and batch
// (`resource/<gpu>/UTIL.CSV` in github.com/casys-kaist/glet), the five coefficients of the
// linear interference model (`INT_MODEL_CONSTANT.CSV`), and partition-latency tables in the
// `inference.csv` layout of the third-party Gpulet reproduction
// (`model,batch,partition%,throughput,T,latency,seconds,flag`).
#pragma once

#include <string>

#include "model/gpu/gpu_catalog.h"
#include "model/profile/model_profile.h"

namespace servescope {

// UTIL.CSV: percentages become fractions; rows are grouped by model and sorted by batch.
std::vector<UtilisationProfile> parse_glet_utilisation(const std::string& text, const std::string& file,
                                                       const std::string& gpu);
InterferenceModel parse_glet_interference(const std::string& text, const std::string& file, const std::string& gpu);

struct PartitionImportResult {
  ProfileSet profiles;     // one "table" profile per model, one table per partition size
  int monotone_fixes = 0;  // latencies raised to keep each curve non-decreasing
};
PartitionImportResult parse_partition_latency_csv(const std::string& text, const std::string& file,
                                                  const std::string& gpu);

// File-reading front end: any of the three paths may be empty. `gpu` is a catalog id or alias.
struct GletImportResult {
  ProfileSet profiles;
  int monotone_fixes = 0;
};
GletImportResult import_glet(const std::string& util_csv, const std::string& interference_csv,
                             const std::string& partition_csv, const std::string& gpu, const GpuCatalog& catalog);

}  // namespace servescope
