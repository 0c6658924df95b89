// The slot device on a real GPU (engine/gpuexec/slot_loop.h): cuBLAS GEMMs (FP16 in and out, FP32
// accumulate, on tensor cores, as inference runs) for the compute part, stream_kernel.h for the
// memory part, timed by CUDA events on the slot's own stream. One per slot process; the process's
// MPS share is whatever CUDA_MPS_ACTIVE_THREAD_PERCENTAGE said when it started.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cublas_v2.h>
#include <deque>
#include <string>
#include <utility>

#include "engine/gpuexec/slot_loop.h"

namespace servescope::cudaexec {

struct CudaSlotOptions {
  int gpu = 0;
  int gemm_size = 1024;                        // square GEMMs of this size: about 2 GFLOP each
  std::size_t gemm_output_bytes = 64u << 20;   // one batched call's outputs: as many GEMMs as fit
  std::size_t min_stream_buffer = 256u << 20;  // and at least 4 × the L2
};

class CudaSlotDevice final : public engine::gpuexec::SlotDevice {
 public:
  // Opens the GPU (an MPS client when the daemon runs) and allocates the buffers; CudaError says
  // which call failed.
  explicit CudaSlotDevice(const CudaSlotOptions& options = {});
  ~CudaSlotDevice() override;
  CudaSlotDevice(const CudaSlotDevice&) = delete;
  CudaSlotDevice& operator=(const CudaSlotDevice&) = delete;

  std::int64_t run_ns(const engine::gpu::WorkRecipe& recipe) override;
  std::int64_t stream_quantum_bytes() const override { return 4096; }
  std::string describe() const override { return description_; }
  std::int64_t upload(std::span<const std::uint8_t> input) override;
  // The batch's output is what its streaming kernel wrote last, round its buffer if need be.
  std::int64_t download(std::uint64_t batch, std::span<std::uint8_t> into) override;
  // A tiled GEMM reads a 128-row panel of A and a 128-column panel of B (fp16) per 128 × 128 tile
  // of C: (n/128)² × 2 × 128n × 2 bytes = n³/32 bytes through the L2.
  double gemm_l2_bytes() const override;
  // The stream kernel on a buffer an eighth of the L2 (both halves fit), median of five.
  double l2_bytes_per_ns() override;

  // Runs `recipe` and returns at once; finish() waits and returns its device time. The co-run
  // measurement keeps a slot busy this way while the other side is timed.
  void enqueue(const engine::gpu::WorkRecipe& recipe);
  std::int64_t finish();

 private:
  void* staging(std::size_t bytes);
  CudaSlotOptions options_;
  std::string description_;
  int sm_count_ = 0;
  int l2_bytes_ = 0;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* a_ = nullptr;
  void* b_ = nullptr;
  void* c_ = nullptr;
  std::size_t gemms_per_call_ = 1;
  void* stream_buffer_ = nullptr;
  std::size_t half_bytes_ = 0;
  std::size_t stream_at_ = 0;  // where in its halves the next stream starts
  void* input_ = nullptr;
  std::size_t input_bytes_ = 0;
  void* host_ = nullptr;  // pinned staging for copies
  std::size_t host_bytes_ = 0;
};

}  // namespace servescope::cudaexec
