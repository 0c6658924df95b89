#include "cudaexec/gpu_query.h"

#include <dlfcn.h>

#include "cudaexec/cuda_check.h"
#include "cudaexec/device_properties.h"

namespace servescope::cudaexec {
namespace {

// The few NVML entry points used, by their C ABI (nvml.h is the driver's, not in the toolkit).
using NvmlReturn = int;
using NvmlDevice = void*;
constexpr int kNvmlClockSm = 1, kNvmlClockMem = 2;

class Nvml {
 public:
  Nvml() {
    lib_ = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) return;
    init_ = reinterpret_cast<NvmlReturn (*)()>(::dlsym(lib_, "nvmlInit_v2"));
    shutdown_ = reinterpret_cast<NvmlReturn (*)()>(::dlsym(lib_, "nvmlShutdown"));
    driver_ = reinterpret_cast<NvmlReturn (*)(char*, unsigned)>(::dlsym(lib_, "nvmlSystemGetDriverVersion"));
    by_bus_ =
        reinterpret_cast<NvmlReturn (*)(const char*, NvmlDevice*)>(::dlsym(lib_, "nvmlDeviceGetHandleByPciBusId_v2"));
    max_clock_ =
        reinterpret_cast<NvmlReturn (*)(NvmlDevice, int, unsigned*)>(::dlsym(lib_, "nvmlDeviceGetMaxClockInfo"));
    power_ = reinterpret_cast<NvmlReturn (*)(NvmlDevice, unsigned*)>(::dlsym(lib_, "nvmlDeviceGetEnforcedPowerLimit"));
    ok_ = init_ && shutdown_ && init_() == 0;
  }
  ~Nvml() {
    if (ok_) shutdown_();
    if (lib_) ::dlclose(lib_);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  std::string driver_version() const {
    std::array<char, 96> text{};
    return ok_ && driver_ && driver_(text.data(), text.size()) == 0 ? std::string(text.data()) : std::string();
  }
  void fill(engine::gpu::GpuDevice& d) const {
    NvmlDevice handle = nullptr;
    if (!ok_ || !by_bus_ || by_bus_(d.pci_bus_id.c_str(), &handle) != 0) return;
    unsigned value = 0;
    if (max_clock_ && max_clock_(handle, kNvmlClockSm, &value) == 0) d.max_sm_clock_mhz = static_cast<int>(value);
    if (max_clock_ && max_clock_(handle, kNvmlClockMem, &value) == 0) d.max_memory_clock_mhz = static_cast<int>(value);
    if (power_ && power_(handle, &value) == 0) d.power_limit_w = value / 1000.0;
  }

 private:
  void* lib_ = nullptr;
  bool ok_ = false;
  NvmlReturn (*init_)() = nullptr;
  NvmlReturn (*shutdown_)() = nullptr;
  NvmlReturn (*driver_)(char*, unsigned) = nullptr;
  NvmlReturn (*by_bus_)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*max_clock_)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*power_)(NvmlDevice, unsigned*) = nullptr;
};

}  // namespace

std::string no_gpu_reason() {
  int count = 0;
  const auto status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
  if (count == 0) return "the CUDA runtime sees no device";
  return {};
}

engine::gpu::GpuInventory query_gpus() {
  engine::gpu::GpuInventory inv;
  int count = 0;
  SERVESCOPE_CUDA(cudaGetDeviceCount(&count));
  SERVESCOPE_CUDA(cudaRuntimeGetVersion(&inv.runtime_version));
  const Nvml nvml;
  inv.driver_version = nvml.driver_version();
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    SERVESCOPE_CUDA(cudaGetDeviceProperties(&prop, i));
    auto d = gpu_device_of(i, prop);
    nvml.fill(d);
    inv.devices.push_back(std::move(d));
  }
  inv.mps = engine::gpu::mps_status();
  return inv;
}

}  // namespace servescope::cudaexec
