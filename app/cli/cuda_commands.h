// The CUDA side of the command line (README "GPU execution"): `live worker --executor cuda`, its
// slot processes (`live slot`, one per vGPU slot, started by the worker), `profile --arch …
// --device cuda`, and what `gpu list` and `measure-interference` share. Built into each executable:
// servescope-cuda runs it, servescope-cli and servescope-torch (no CUDA) hand the whole command
// over to servescope-cuda.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/cli/cli_context.h"
#include "app/cli/executor_setup.h"
#include "engine/gpu/gpu_inventory.h"
#include "engine/gpuexec/slot_process.h"

namespace servescope::cli {

struct CudaWorkerArgs {
  int gpu = 0;
  std::string profiles;  // scenario, project or profiles file: the feature maps' sizes (else a pattern)
  double compute_fraction = 0.7;
  bool no_mps = false;  // run without the MPS daemon: the slots time-share the GPU
  int gemm_size = 1024;
};

ExecutorSetup make_cuda_worker(const CudaWorkerArgs& args, const std::function<void(const std::string&)>& log);

// This program as a slot process on GPU `gpu` at `percent` % of its threads.
engine::gpuexec::SlotCommand cuda_slot_command(int gpu, int gemm_size, int percent);

// The body of `live slot`: the slot loop on stdin and stdout over GPU `gpu`.
int run_cuda_slot(int gpu, int gemm_size);

struct CudaProfileArgs {
  std::vector<std::string> architectures;  // the estimator's CNNs (estimate --list)
  int gpu = 0;
  int blocks = 10;
  int repeats = 20;
  int gemm_size = 256;  // small GEMMs: a block of a small batch is a few GFLOP
  double slo_multiplier = 5.0;
  std::string out;
  std::string scenario_out;  // with one --arch: a scenario of `nodes` servers with this GPU
  int nodes = 1;
  double rate_rps = 0;  // that scenario's rate; 0: half what one GPU does at its largest batch
};
// `profile --arch … --device cuda`: block profiles of the CNNs at MPS shares 1 to 1/4, measured
// with calibrated kernels (engine/gpuexec/kernel_profiler.h).
int run_cuda_profile(const GlobalOptions& global, const CudaProfileArgs& args);

// This machine's GPUs. Error when there is none (the runtime's reason), QueryError for no GPU `gpu`.
// With `mps`, also makes sure the MPS daemon runs (starting it), or says what is missing.
engine::gpu::GpuInventory require_gpu(int gpu, bool mps);

}  // namespace servescope::cli
