#include "engine/gpu/gpu_inventory.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "model/core/text.h"
#include "model/io/model_json.h"

namespace servescope::engine::gpu {
namespace {

struct ArchitectureFigures {
  int major, minor;  // minor -1: every minor of the major
  const char* name;
  int fp32_lanes_per_sm;
  int fp16_dense_flops_per_sm_clock;  // tensor cores, FP16 in and FP32 accumulate; 0: unknown
};

// From NVIDIA's architecture whitepapers (per-SM figures; the GPU-wide peaks of the built-in
// catalog are these × SMs × boost clock).
constexpr ArchitectureFigures kArchitectures[] = {
    {7, 0, "Volta", 64, 1024},         {7, 2, "Volta", 64, 1024},   {7, 5, "Turing", 64, 1024},
    {8, 0, "Ampere", 64, 2048},        {8, 6, "Ampere", 128, 1024}, {8, 7, "Ampere", 128, 1024},
    {8, 9, "Ada Lovelace", 128, 1024}, {9, 0, "Hopper", 128, 4096}, {10, -1, "Blackwell", 128, 0},
    {12, -1, "Blackwell", 128, 0},
};

const ArchitectureFigures* figures_of(int major, int minor) {
  for (const auto& a : kArchitectures)
    if (a.major == major && (a.minor == minor || a.minor == -1)) return &a;
  return nullptr;
}

std::string derived_id(const std::string& name) {
  std::string id = name;
  if (id.starts_with("NVIDIA ")) id.erase(0, 7);
  for (auto& c : id)
    if (c == ' ') c = '-';
  return id.empty() ? "GPU" : id;
}

double rounded(double x, double step) {
  return std::round(x / step) * step;
}

// Why a connection to the Unix socket at `path` fails ("" when it is accepted, and closed again).
std::string unix_socket_refusal(const std::filesystem::path& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const auto& name = path.native();
  if (name.size() >= sizeof(address.sun_path)) return "its path is too long for a socket";
  std::memcpy(address.sun_path, name.c_str(), name.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::strerror(errno);
  const int connected = ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  const int error = errno;
  ::close(fd);
  return connected == 0 ? std::string() : std::string("connect: ") + std::strerror(error);
}

}  // namespace

MpsStatus mps_status(const std::optional<std::string>& pipe_directory_env) {
  MpsStatus s;
  s.pipe_directory = pipe_directory_env && !pipe_directory_env->empty() ? *pipe_directory_env : "/tmp/nvidia-mps";
  const auto control = s.pipe_directory / "control";
  struct stat st {};
  if (::stat(control.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) {
    s.detail = "no control daemon (no socket " + control.string() + "); start one with nvidia-cuda-mps-control -d";
    return s;
  }
  // A daemon that died leaves its socket behind: only one that accepts a connection runs. Taken
  // for running, a stale socket would leave the slots' shares unenforced and their co-runs
  // labelled as MPS partitions.
  if (const auto why = unix_socket_refusal(control); !why.empty()) {
    s.stale = true;
    s.detail = "a stale control socket " + control.string() + " (" + why +
               "): its daemon is gone; remove the folder's files and start one with nvidia-cuda-mps-control -d";
    return s;
  }
  s.running = true;
  s.detail = "control daemon's socket " + control.string();
  return s;
}

MpsStatus mps_status() {
  const char* dir = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  return mps_status(dir ? std::optional<std::string>(dir) : std::nullopt);
}

std::string architecture_name(int compute_major, int compute_minor) {
  if (const auto* a = figures_of(compute_major, compute_minor)) return a->name;
  return "sm_" + std::to_string(compute_major) + std::to_string(compute_minor);
}

GpuSpec catalog_entry(const GpuDevice& d) {
  GpuSpec g;
  g.id = derived_id(d.name);
  g.name = d.name;
  g.architecture = architecture_name(d.compute_major, d.compute_minor);
  g.sm_count = d.sm_count;
  g.memory_gib = rounded(static_cast<double>(d.memory_bytes) / (1024.0 * 1024 * 1024), 0.01);
  // Peaks at the highest clock the device reports (NVML's maximum where there is one).
  const double sm_ghz = d.max_sm_clock_mhz.value_or(d.sm_clock_mhz) / 1e3;
  const double mem_mhz = d.max_memory_clock_mhz.value_or(d.memory_clock_mhz);
  if (const auto* a = figures_of(d.compute_major, d.compute_minor); a && sm_ghz > 0) {
    g.fp32_tflops = rounded(d.sm_count * a->fp32_lanes_per_sm * 2 * sm_ghz / 1e3, 0.1);
    g.fp16_tflops = rounded(d.sm_count * a->fp16_dense_flops_per_sm_clock * sm_ghz / 1e3, 0.1);
  }
  if (mem_mhz > 0 && d.memory_bus_bits > 0)
    g.memory_bandwidth_gbs = rounded(2 * mem_mhz * 1e6 * d.memory_bus_bits / 8 / 1e9, 1);
  g.mps = d.compute_major >= 7;  // Volta's execution-resource provisioning
  return g;
}

CatalogUpdate update_catalog(GpuCatalog& catalog, const GpuDevice& device) {
  auto entry = catalog_entry(device);
  const GpuSpec* existing = catalog.find(device.name);
  if (!existing) existing = catalog.find(entry.id);
  if (!existing) {
    const auto id = entry.id;
    catalog.add_or_replace(std::move(entry));
    return {id, true};
  }
  GpuSpec merged = *existing;
  merged.architecture = entry.architecture;
  merged.sm_count = entry.sm_count;
  merged.memory_gib = entry.memory_gib;
  if (entry.fp32_tflops > 0) merged.fp32_tflops = entry.fp32_tflops;
  if (entry.fp16_tflops > 0) merged.fp16_tflops = entry.fp16_tflops;
  if (entry.memory_bandwidth_gbs > 0) merged.memory_bandwidth_gbs = entry.memory_bandwidth_gbs;
  merged.mps = entry.mps;
  if (!iequals(merged.id, device.name) && !iequals(merged.name, device.name) &&
      std::ranges::none_of(merged.aliases, [&](const std::string& a) { return iequals(a, device.name); }))
    merged.aliases.push_back(device.name);
  const auto id = merged.id;
  catalog.add_or_replace(std::move(merged));
  return {id, false};
}

nlohmann::json to_json(const GpuInventory& inv) {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : inv.devices) {
    nlohmann::json j{{"index", d.index},
                     {"name", d.name},
                     {"uuid", d.uuid},
                     {"pci_bus_id", d.pci_bus_id},
                     {"compute_capability", std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor)},
                     {"architecture", architecture_name(d.compute_major, d.compute_minor)},
                     {"sm_count", d.sm_count},
                     {"memory_bytes", d.memory_bytes},
                     {"sm_clock_mhz", d.sm_clock_mhz},
                     {"memory_clock_mhz", d.memory_clock_mhz},
                     {"memory_bus_bits", d.memory_bus_bits},
                     {"l2_bytes", d.l2_bytes},
                     {"compute_mode", d.compute_mode}};
    if (d.max_sm_clock_mhz) j["max_sm_clock_mhz"] = *d.max_sm_clock_mhz;
    if (d.max_memory_clock_mhz) j["max_memory_clock_mhz"] = *d.max_memory_clock_mhz;
    if (d.power_limit_w) j["power_limit_w"] = *d.power_limit_w;
    j["catalog_entry"] = servescope::to_json(catalog_entry(d));
    devices.push_back(std::move(j));
  }
  return {{"driver_version", inv.driver_version},
          {"runtime_version", inv.runtime_version},
          {"mps",
           {{"running", inv.mps.running},
            {"stale", inv.mps.stale},
            {"pipe_directory", inv.mps.pipe_directory.string()},
            {"detail", inv.mps.detail}}},
          {"devices", std::move(devices)}};
}

std::string to_text(const GpuInventory& inv) {
  std::ostringstream out;
  out << inv.devices.size() << " GPU" << (inv.devices.size() == 1 ? "" : "s") << "; CUDA runtime "
      << inv.runtime_version / 1000 << "." << inv.runtime_version % 1000 / 10;
  if (!inv.driver_version.empty()) out << ", driver " << inv.driver_version;
  out << "\nMPS: " << (inv.mps.running ? "running (" : "not running (") << inv.mps.detail << ")\n";
  for (const auto& d : inv.devices) {
    const auto g = catalog_entry(d);
    out << "\n"
        << d.index << ": " << d.name << " (" << g.architecture << ", compute " << d.compute_major << "."
        << d.compute_minor << ")";
    if (!d.pci_bus_id.empty()) out << " at " << d.pci_bus_id;
    out << "\n   " << d.sm_count << " SMs at " << d.max_sm_clock_mhz.value_or(d.sm_clock_mhz) << " MHz, " << std::fixed
        << std::setprecision(1) << g.memory_gib << " GiB (" << d.memory_bus_bits << "-bit at "
        << d.max_memory_clock_mhz.value_or(d.memory_clock_mhz) << " MHz), L2 " << d.l2_bytes / (1024 * 1024)
        << " MiB, compute mode " << d.compute_mode << "\n   peaks: " << g.fp32_tflops << " FP32 TFLOPS, "
        << g.fp16_tflops << " FP16 tensor TFLOPS, " << std::setprecision(0) << g.memory_bandwidth_gbs << " GB/s";
    if (d.power_limit_w) out << ", power limit " << *d.power_limit_w << " W";
    out << "\n";
  }
  return out.str();
}

}  // namespace servescope::engine::gpu
