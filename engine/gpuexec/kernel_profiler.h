// Block profiles measured on a real GPU without the model's own kernels (README "GPU
// execution"; `profile --arch NAME --device cuda`): the estimator's CNN (engine/estimate/) is cut
// into blocks as docs/estimator.md cuts it, and each block's work at each batch runs on the GPU
// as calibrated work: its compute-bound layers' FLOPs as GEMMs, its memory-bound layers' bytes as a
// stream, at MPS shares 1, 1/2, 1/3 and 1/4 (one slot process per share). The medians and 99th
// percentiles of the device's times replace the roofline's guesses.
//
// What it measures is this GPU on work of each block's size and kind, not the model's real
// kernels (where LibTorch has CUDA, `profile MODEL_DIR --device cuda` times those).
#pragma once

#include <functional>
#include <string>

#include "engine/estimate/profile_estimator.h"
#include "engine/gpu/work_calibration.h"
#include "engine/gpuexec/slot_process.h"
#include "model/arch/layer_graph.h"

namespace servescope::engine::gpuexec {

struct KernelProfileOptions {
  // The slot process at `percent` % of the GPU's threads; its GEMMs are gemm_size square.
  std::function<SlotCommand(int percent)> slot_command;
  GpuSpec gpu;  // this GPU's catalog entry (gpu list): the blocks' cuts and each layer's kind
  EstimateOptions estimate;
  int gemm_size = 256;
  std::uint32_t repeats = 20;
  std::chrono::milliseconds ready_within{std::chrono::minutes(2)};
  std::function<void(const std::string&)> progress;
};

// The calibrated work of layers [begin, end) at `batch`: each layer whose roofline time is
// compute-bound adds its FLOPs (as GEMMs of `gemm_flops` each), each other layer its bytes.
gpu::WorkRecipe block_work(const LayerGraph& graph, int begin, int end, int batch, const DeviceRates& rates,
                           double gemm_flops, std::int64_t stream_quantum);

// Throws live::ExecutorFailure when a slot cannot start or fails, QueryError as estimate_model.
ModelProfile profile_with_kernels(const LayerGraph& graph, const std::string& description,
                                  const KernelProfileOptions& options);

}  // namespace servescope::engine::gpuexec
