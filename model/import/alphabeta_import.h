// Reads linear latency fits `latency = α·b + β` from a CSV table with a header row. Columns:
// model, gpu, alpha_ms or alpha_us, beta_ms or beta_us, and optionally slo_ms or slo_us and
// max_batch, in any order (docs/formats.md, "α/β tables"). This is how Symphony (seed 002,
// Appendix C), Clockwork and Nexus describe models.
#pragma once

#include <string>

#include "model/gpu/gpu_catalog.h"
#include "model/profile/model_profile.h"

namespace servescope {

ProfileSet import_alphabeta_csv(const std::string& path, const GpuCatalog& catalog);
ProfileSet parse_alphabeta_csv(const std::string& text, const std::string& file, const GpuCatalog& catalog);

}  // namespace servescope
