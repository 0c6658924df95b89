// The GPUs of this machine as `servescope-cli gpu list` reports them (README "GPU execution"):
// what the CUDA runtime and, where the driver has it, NVML say about each device, the MPS
// control daemon's state, and the catalog entry (model/gpu/gpu_catalog.h) the planners need.
//
// Qt- and CUDA-free: cudaexec/gpu_query.cpp fills GpuDevice from cudart and NVML; everything
// made from it (the catalog entry's figures, the merge into a catalog file, MPS's state from its
// pipe folder) is here and tested without a GPU.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/gpu/gpu_catalog.h"

namespace servescope::engine::gpu {

struct GpuDevice {
  int index = 0;
  std::string name;        // "NVIDIA H100 80GB HBM3"
  std::string uuid;        // "GPU-…", empty where unknown
  std::string pci_bus_id;  // "0000:17:00.0"
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;
  std::uint64_t memory_bytes = 0;
  int sm_clock_mhz = 0;      // the runtime's peak SM clock
  int memory_clock_mhz = 0;  // the runtime's peak memory clock
  int memory_bus_bits = 0;
  int l2_bytes = 0;
  std::string compute_mode;  // default, exclusive-process, prohibited
  // From NVML, where libnvidia-ml is there.
  std::optional<int> max_sm_clock_mhz, max_memory_clock_mhz;
  std::optional<double> power_limit_w;
};

// The MPS control daemon, as a client sees it: its pipe folder ($CUDA_MPS_PIPE_DIRECTORY, else
// /tmp/nvidia-mps) holds a `control` socket while it runs.
struct MpsStatus {
  bool running = false;  // its control socket accepts connections
  bool stale = false;    // a control socket is there, but nothing accepts on it
  std::filesystem::path pipe_directory;
  std::string detail;  // what was found, for the report
};
MpsStatus mps_status(const std::optional<std::string>& pipe_directory_env);
MpsStatus mps_status();  // from this process's environment

struct GpuInventory {
  std::string driver_version;  // "580.65.06"; empty where unknown
  int runtime_version = 0;     // cudart's, e.g. 13000
  std::vector<GpuDevice> devices;
  MpsStatus mps;
};

// The catalog entry for a device. Figures the runtime reports are filled in; the peaks are
// derived from them: FP32 = SMs × FP32 lanes per SM × 2 × clock, FP16 = the dense tensor-core
// rate per SM of its architecture × SMs × clock, memory bandwidth = 2 × memory clock × bus width
// (DDR). A compute capability the table does not know leaves its peaks at 0 (unknown). The id is
// the name without "NVIDIA " and with spaces as dashes ("H100-80GB-HBM3").
GpuSpec catalog_entry(const GpuDevice& device);
std::string architecture_name(int compute_major, int compute_minor);  // "Hopper"; "sm_XY" if unknown

// Where a device's entry goes in `catalog`: the type whose id or alias names it (the catalog's
// own "H100" for an "NVIDIA H100 80GB HBM3" only through an alias), else a new type.
struct CatalogUpdate {
  std::string id;
  bool added = false;  // false: an existing type was updated
};
// Adds or updates the device's type, keeping what the entry had that the device cannot say (its
// aliases, its price per hour).
CatalogUpdate update_catalog(GpuCatalog& catalog, const GpuDevice& device);

nlohmann::json to_json(const GpuInventory& inventory);
std::string to_text(const GpuInventory& inventory);

}  // namespace servescope::engine::gpu
