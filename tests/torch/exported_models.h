// Where the torch tests find the models tests/CMakeLists.txt exports (fixture torch.export):
// SERVESCOPE_TORCH_MODELS is defined for the torch test executables only.
#pragma once

#include <filesystem>

namespace servescope::test {

inline std::filesystem::path exported_resnet18() {
  return std::filesystem::path(SERVESCOPE_TORCH_MODELS) / "resnet18";
}

}  // namespace servescope::test
