// The MPS control daemon (README "GPU execution"): slot processes and profile's share processes
// get their shares of a GPU from it, so each command that needs shares checks it is there and
// starts it when allowed.
#pragma once

#include <chrono>
#include <string>

#include "engine/gpu/gpu_inventory.h"
#include "model/core/error.h"

namespace servescope::engine::gpu {

// Returns the daemon's state after making sure it runs: when it does not and `start` is true,
// runs `nvidia-cuda-mps-control -d` (found on PATH or in /usr/bin) and waits up to `wait` for its
// control socket. Throws MpsUnavailable saying exactly what is missing: the program (it comes
// with the NVIDIA driver), the GPU's compute mode (prohibited), or a daemon that did not come up
// (its log folder, $CUDA_MPS_LOG_DIRECTORY or /var/log/nvidia-mps, says why); a command that can
// run without MPS adds how.
class MpsUnavailable : public Error {
 public:
  using Error::Error;
};
MpsStatus ensure_mps(bool start, const GpuInventory& gpus, std::chrono::milliseconds wait = std::chrono::seconds(10));

}  // namespace servescope::engine::gpu
