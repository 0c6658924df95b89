// This machine's GPUs from the CUDA runtime, and from NVML where the driver installed it
// (libnvidia-ml.so.1, opened at run time: it belongs to the driver, not the toolkit).
#pragma once

#include <string>

#include "engine/gpu/gpu_inventory.h"

namespace servescope::cudaexec {

// Every device the runtime sees. Throws CudaError when the runtime cannot start; a machine
// without a driver or a GPU says so in the message ("no CUDA-capable device", "driver too old").
engine::gpu::GpuInventory query_gpus();

// Why there is no usable GPU here, or empty when there is one: the runtime's own words.
std::string no_gpu_reason();

}  // namespace servescope::cudaexec
