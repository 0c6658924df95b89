// Reads Nexus model-database profiles (github.com/uwsampl/nexus, tests/data/model_db/profiles):
// a model id line, a GPU line, then "Forward latency" rows `batch,latency(us),std(us),memory(B)`
// and the mean pre- and post-processing times. The result is a whole-GPU batch table.
#pragma once

#include <string>

#include "model/gpu/gpu_catalog.h"
#include "model/profile/model_profile.h"

namespace servescope {

struct NexusImportResult {
  ModelProfile profile;
  int monotone_fixes = 0;  // forward latencies raised to keep the curve non-decreasing
};

// `name` overrides the model name (default: the model part of "framework:model:version").
NexusImportResult import_nexus_profile(const std::string& path, const GpuCatalog& catalog,
                                       const std::string& name = {});
NexusImportResult parse_nexus_profile(const std::string& text, const std::string& file, const GpuCatalog& catalog,
                                      const std::string& name = {});

}  // namespace servescope
