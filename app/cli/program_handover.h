// servescope-cli links neither LibTorch nor CUDA: loading LibTorch's 290 libraries made every
// command start in half a second, and cuBLAS is no Debian package (the .deb could not name it).
// The commands that need them run in programs built beside it with the same commands:
//  - servescope-torch (torchexec/): `profile MODEL_DIR`, `live worker --executor torch`;
//  - servescope-cuda (cudaexec/): `gpu list`, `measure-interference`, `profile --device cuda
//    --arch …`, `live worker --executor cuda` and its slot processes.
#pragma once

#include <string>

namespace servescope::cli {

// Replaces this process with `program` from the same folder, with the same arguments. Throws
// QueryError saying `missing` (how to get one) when there is none, or why it cannot start.
[[noreturn]] void hand_over_to(const std::string& program, const std::string& missing);

[[noreturn]] void hand_over_to_torch();
[[noreturn]] void hand_over_to_cuda();

// This program's own path (/proc/self/exe), for the processes it starts of itself.
std::string own_program();

}  // namespace servescope::cli
