// Constructed block profiles for the pooled-pipeline planners' tests: a model whose blocks take
// fixed times per GPU type, scaled by batch and vGPU size. Synthetic numbers, not measurements.
#pragma once

#include <string>
#include <vector>

#include "model/profile/model_profile.h"

namespace servescope::test {

// A model of `per_block_us.size()` blocks; on each (gpu, divisor) block n takes
// per_block_us[n] · (1 + 0.5·(b − 1)) · divisor µs at batch b (1..4), and every cut carries `cut_bytes`.
struct ToyGpu {
  std::string gpu;
  std::vector<double> per_block_us;
  std::vector<int> divisors = {1};
};
inline ModelProfile toy_model(const std::string& name, const std::vector<ToyGpu>& gpus, std::int64_t cut_bytes) {
  ModelProfile p;
  p.name = name;
  p.form = ProfileForm::Blocks;
  p.block_count = static_cast<int>(gpus.front().per_block_us.size());
  p.boundary_bytes.assign(static_cast<std::size_t>(p.block_count - 1), cut_bytes);
  for (const auto& g : gpus)
    for (const int v : g.divisors) {
      BlockTable t{g.gpu, GpuShare::mps(v), {}, {}, {}};
      for (const double l : g.per_block_us) {
        std::vector<int> batches;
        std::vector<Duration> lat;
        for (int b = 1; b <= 4; ++b) {
          batches.push_back(b);
          lat.push_back(Duration::from_us(l * (1 + 0.5 * (b - 1)) * v));
        }
        t.blocks.emplace_back(batches, lat);
      }
      p.block_tables.push_back(std::move(t));
    }
  return p;
}

}  // namespace servescope::test
