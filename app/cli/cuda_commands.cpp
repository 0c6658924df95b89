#include "app/cli/cuda_commands.h"

#include <cmath>

#include "app/cli/program_handover.h"
#include "model/core/error.h"

#ifdef SERVESCOPE_HAVE_CUDA
#include <iostream>
#include <sstream>

#include "app/cli/profiles_output.h"
#include "cudaexec/cuda_check.h"
#include "cudaexec/cuda_slot_device.h"
#include "cudaexec/gpu_query.h"
#include "engine/estimate/cnn_architectures.h"
#include "engine/gpu/mps_control.h"
#include "engine/gpuexec/kernel_profiler.h"
#include "engine/gpuexec/slot_executor.h"
#include "engine/gpuexec/slot_loop.h"
#include "model/io/document.h"
#endif

namespace servescope::cli {

engine::gpuexec::SlotCommand cuda_slot_command(int gpu, int gemm_size, int percent) {
  engine::gpuexec::SlotCommand c;
  c.argv = {own_program(), "live", "slot", "--gpu", std::to_string(gpu), "--gemm-size", std::to_string(gemm_size)};
  c.env = {{"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(std::clamp(percent, 1, 100))}};
  return c;
}

#ifndef SERVESCOPE_HAVE_CUDA

ExecutorSetup make_cuda_worker(const CudaWorkerArgs&, const std::function<void(const std::string&)>&) {
  hand_over_to_cuda();
}
int run_cuda_slot(int, int) {
  hand_over_to_cuda();
}
int run_cuda_profile(const GlobalOptions&, const CudaProfileArgs&) {
  hand_over_to_cuda();
}
engine::gpu::GpuInventory require_gpu(int, bool) {
  hand_over_to_cuda();
}

#else

engine::gpu::GpuInventory require_gpu(int gpu, bool mps) {
  if (const auto why = cudaexec::no_gpu_reason(); !why.empty()) throw Error("no GPU to run on here (" + why + ")");
  auto inventory = cudaexec::query_gpus();
  if (gpu < 0 || gpu >= static_cast<int>(inventory.devices.size()))
    throw QueryError("--gpu " + std::to_string(gpu) + ": this machine has GPUs 0 to " +
                     std::to_string(inventory.devices.size() - 1));
  if (mps) inventory.mps = engine::gpu::ensure_mps(true, inventory);
  return inventory;
}

int run_cuda_slot(int gpu, int gemm_size) {
  cudaexec::CudaSlotOptions options;
  options.gpu = gpu;
  options.gemm_size = gemm_size;
  try {
    cudaexec::CudaSlotDevice device(options);
    return engine::gpuexec::run_slot_loop(device, 0, 1);
  } catch (const cudaexec::CudaError& e) {  // the device did not open: the worker hears why
    return engine::gpuexec::fail_slot(1, e.what());
  }
}

int run_cuda_profile(const GlobalOptions& global, const CudaProfileArgs& args) {
  if (args.architectures.empty()) throw QueryError("profile --device cuda needs --arch (see estimate --list)");
  if (!args.scenario_out.empty() && args.architectures.size() != 1)
    throw QueryError("--scenario-out plans one model: give one --arch with it");
  for (const auto& id : args.architectures)
    engine::find_architecture(id);  // an unknown name is refused before the GPU is looked at
  // The shares are MPS partitions: without the daemon they would not be shares at all.
  const auto inventory = require_gpu(args.gpu, true);
  engine::gpuexec::KernelProfileOptions o;
  o.gpu = engine::gpu::catalog_entry(inventory.devices.at(static_cast<std::size_t>(args.gpu)));
  const int gpu = args.gpu, gemm_size = args.gemm_size;
  o.slot_command = [gpu, gemm_size](int percent) { return cuda_slot_command(gpu, gemm_size, percent); };
  o.gemm_size = args.gemm_size;
  o.repeats = static_cast<std::uint32_t>(args.repeats);
  o.estimate.blocks = args.blocks;
  o.estimate.reference_gpu = o.gpu.id;
  o.estimate.slo_multiplier = args.slo_multiplier;
  o.progress = [](const std::string& line) { std::cerr << "profile: " << line << "\n"; };
  ProfileSet set;
  set.name = "measured on " + o.gpu.id;
  set.source = "servescope-cli profile --device cuda on " + o.gpu.name + " (calibrated kernels); add the GPU type " +
               o.gpu.id + " to a catalog with gpu list --catalog";
  for (const auto& id : args.architectures) {
    const auto& arch = engine::find_architecture(id);
    set.models.push_back(engine::gpuexec::profile_with_kernels(arch.build(), arch.description, o));
  }
  if (!args.scenario_out.empty()) {
    const auto& model = set.models.front();
    double rate = args.rate_rps;
    if (!(rate > 0)) {  // half of what one whole GPU does at the largest batch it was measured at
      const int batch = model.max_batch(o.gpu.id, GpuShare::whole());
      rate = 0.5 * batch / model.latency({o.gpu.id, GpuShare::whole(), batch, std::nullopt}).to_s();
    }
    save_scenario(args.scenario_out, measured_scenario(model, o.gpu, args.nodes, rate, "gpu"));
    report_stream() << "wrote " << args.scenario_out << " (" << args.nodes << " x " << o.gpu.id << ", " << rate
                    << " req/s)\n";
  }
  return write_profiles(global, args.out, set, {});
}

ExecutorSetup make_cuda_worker(const CudaWorkerArgs& args, const std::function<void(const std::string&)>& log) {
  const auto inventory = [&] {
    try {
      return require_gpu(args.gpu, !args.no_mps);
    } catch (const engine::gpu::MpsUnavailable& e) {
      throw engine::gpu::MpsUnavailable(std::string(e.what()) + "; pass --no-mps to run without it");
    }
  }();
  const auto& device = inventory.devices.at(static_cast<std::size_t>(args.gpu));
  if (log) {
    log("GPU " + std::to_string(args.gpu) + ": " + device.name + "; MPS " +
        (inventory.mps.running ? "running (" : "off (") + inventory.mps.detail + ")");
    if (!inventory.mps.running) log("without MPS the slots time-share the GPU: their shares are not enforced");
  }
  engine::gpuexec::SlotExecutorOptions options;
  const int gpu = args.gpu, gemm_size = args.gemm_size;
  options.slot_command = [gpu, gemm_size](std::uint32_t, double share) {
    return cuda_slot_command(gpu, gemm_size, static_cast<int>(std::lround(share * 100)));
  };
  options.compute_fraction = args.compute_fraction;
  if (!args.profiles.empty()) options.profiles = profiles_in(args.profiles);
  options.log = log;
  auto executor = std::make_unique<engine::gpuexec::SlotExecutor>(std::move(options));
  const auto* exec = executor.get();
  ExecutorSetup out;
  out.summary = [exec] {
    const auto& s = exec->stats();
    std::ostringstream text;
    text << "ran " << s.batches << " batches on the GPU in " << s.slots_started << " slot processes; " << s.maps_fetched
         << " feature maps copied device to host, " << s.maps_uploaded << " host to device ("
         << static_cast<double>(s.copy_ns) / 1e6 << " ms)";
    if (s.maps_forgotten > 0) text << "; forgot " << s.maps_forgotten << " samples of dropped requests";
    return text.str();
  };
  out.executor = std::move(executor);
  return out;
}

#endif

}  // namespace servescope::cli
