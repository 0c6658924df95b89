#include "engine/gpu/mps_control.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <vector>

#include "engine/gpu/child_program.h"
#include "model/core/error.h"

namespace servescope::engine::gpu {
namespace {

std::string find_program(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    for (std::size_t at = 0; at <= p.size();) {
      const auto end = std::min(p.find(':', at), p.size());
      dirs.push_back(p.substr(at, end - at));
      at = end + 1;
    }
  }
  // Where the driver's own tools are when they are not on PATH: Debian's packages put them in
  // /usr/bin; a container's driver mount (the NVIDIA container toolkit's) in /usr/local/nvidia/bin.
  dirs.emplace_back("/usr/bin");
  dirs.emplace_back("/usr/local/nvidia/bin");
  for (const auto& d : dirs) {
    std::error_code ec;
    const auto candidate = std::filesystem::path(d.empty() ? "." : d) / name;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate.string();
  }
  return {};
}

}  // namespace

MpsStatus ensure_mps(bool start, const GpuInventory& gpus, std::chrono::milliseconds wait) {
  for (const auto& d : gpus.devices)
    if (d.compute_mode == "prohibited")
      throw MpsUnavailable(
          "GPU " + std::to_string(d.index) + " (" + d.name +
          ") is in the prohibited compute mode: no process may use it (nvidia-smi -c DEFAULT as root)");
  auto status = mps_status();
  if (status.running || !start) return status;
  const auto program = find_program("nvidia-cuda-mps-control");
  if (program.empty())
    throw MpsUnavailable(
        "the MPS control daemon is not running and nvidia-cuda-mps-control is not on PATH, in /usr/bin or in "
        "/usr/local/nvidia/bin: it comes with the NVIDIA driver (Debian: nvidia-cuda-mps). Without MPS processes "
        "time-share the GPU instead of splitting it");
  if (status.stale) {  // a dead daemon's socket: nothing answers on it, and a new daemon needs the name
    std::error_code ec;
    std::filesystem::remove(status.pipe_directory / "control", ec);
    if (ec)
      throw MpsUnavailable("cannot remove the stale MPS control socket " +
                           (status.pipe_directory / "control").string() + ": " + ec.message());
  }
  // -d forks the daemon and returns.
  if (const int exit_status = run_to_end({{program, "-d"}, {}}); exit_status != 0)
    throw MpsUnavailable(program + " -d failed (status " + std::to_string(exit_status) + ")");
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (!status.running && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    status = mps_status();
  }
  if (!status.running) {
    const char* logs = std::getenv("CUDA_MPS_LOG_DIRECTORY");
    throw MpsUnavailable("started " + program + " -d, but after " + std::to_string(wait.count()) +
                         " ms there is still " + status.detail + "; its log in " +
                         (logs ? std::string(logs) : std::string("/var/log/nvidia-mps")) + " says why");
  }
  status.detail += " (started by this process)";
  return status;
}

}  // namespace servescope::engine::gpu
