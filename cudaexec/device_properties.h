// A CUDA device as `gpu list` reports it (engine/gpu/gpu_inventory.h GpuDevice), from the CUDA
// runtime: what cudaDeviceProp still holds in CUDA 13, and the clocks and compute mode it dropped,
// which are attributes now. Header-only, so that the two programs that open GPUs fill it the same
// way with their own runtime: servescope-cuda (cudaexec/gpu_query.cpp, cudart linked statically)
// and servescope-torch built against a CUDA LibTorch (torchexec/torch_model.cpp, LibTorch's cudart).
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <string>

#include "engine/gpu/gpu_inventory.h"

namespace servescope::cudaexec {

inline std::string compute_mode_name(int mode) {
  switch (mode) {
    case cudaComputeModeDefault:
      return "default";
    case cudaComputeModeExclusiveProcess:
      return "exclusive-process";
    case cudaComputeModeProhibited:
      return "prohibited";
    default:
      return "mode " + std::to_string(mode);
  }
}

inline std::string uuid_text(const cudaUUID_t& uuid) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    const auto byte = static_cast<unsigned char>(uuid.bytes[i]);
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  }
  return out;
}

// Device `index` described from `prop` (cudaGetDeviceProperties'); an attribute the runtime does
// not give stays 0 (unknown), as the catalog treats it.
inline engine::gpu::GpuDevice gpu_device_of(int index, const cudaDeviceProp& prop) {
  const auto attribute = [index](cudaDeviceAttr what) {
    int value = 0;
    return cudaDeviceGetAttribute(&value, what, index) == cudaSuccess ? value : 0;
  };
  engine::gpu::GpuDevice d;
  d.index = index;
  d.name = prop.name;
  d.uuid = uuid_text(prop.uuid);
  std::array<char, 32> bus{};
  if (cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), index) == cudaSuccess) d.pci_bus_id = bus.data();
  d.compute_major = prop.major;
  d.compute_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.memory_bytes = prop.totalGlobalMem;
  d.memory_bus_bits = prop.memoryBusWidth;
  d.l2_bytes = prop.l2CacheSize;
  d.sm_clock_mhz = attribute(cudaDevAttrClockRate) / 1000;
  d.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate) / 1000;
  d.compute_mode = compute_mode_name(attribute(cudaDevAttrComputeMode));
  return d;
}

}  // namespace servescope::cudaexec
