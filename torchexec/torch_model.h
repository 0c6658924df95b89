// A model exported into blocks (model/exported/exported_model.h), loaded with LibTorch and run
// on real tensors (README "Real models"): the blocks of a pipeline stage in order, or the whole
// model to check a pipeline's output against. LibTorch stays behind this header (a pimpl), so the
// rest of ServeScope builds and reads model folders without it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/gpu/gpu_inventory.h"
#include "model/exported/exported_model.h"

namespace servescope::torchexec {

// A batch of samples of one dtype (float32 unless a model's boundary says otherwise): shape[0] is
// the batch. Moves are cheap; it holds a LibTorch tensor.
class Tensor {
 public:
  Tensor();
  ~Tensor();
  Tensor(Tensor&&) noexcept;
  Tensor& operator=(Tensor&&) noexcept;
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;

  std::vector<std::int64_t> shape() const;
  std::int64_t bytes() const;
  // The raw data, row-major (what travels as a feature map), and back as `dtype` (on the CPU; a
  // model moves its input to its device). Throws QueryError when the bytes are not the shape's.
  std::vector<std::uint8_t> to_bytes() const;
  static Tensor from_bytes(std::span<const std::uint8_t> bytes, const std::vector<std::int64_t>& shape,
                           TensorDType dtype = TensorDType::Float32);
  // The largest absolute difference to `other` (same shape), and the largest absolute value.
  double max_abs_difference(const Tensor& other) const;
  double max_abs() const;
  // Each sample as a batch of one, sharing this tensor's memory; and samples back into a batch,
  // in order (a pipeline stage's batch gathers samples that came from several batches).
  std::vector<Tensor> samples() const;
  static Tensor concat(const std::vector<const Tensor*>& parts);

  struct Impl;
  explicit Tensor(std::unique_ptr<Impl> impl);
  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Where a model's tensors live and run. CUDA needs a LibTorch built with it; Debian's is not.
// The GPU is CUDA's device 0: CUDA_VISIBLE_DEVICES chooses which one that is.
enum class ComputeDevice { Cpu, Cuda };
bool cuda_available();

// That GPU as `gpu list` describes it, for its catalog entry (engine::gpu::catalog_entry). Throws
// QueryError where this LibTorch has no CUDA or sees no GPU.
engine::gpu::GpuDevice cuda_device();

// Gives the calling thread a CUDA stream of its own from LibTorch's pool, for as long as the
// thread lives: a live worker's slots then run side by side on the GPU, each waiting only for its
// own kernels, as separate processes' would. Nothing on the CPU.
void use_own_stream(ComputeDevice device);

class TorchModel {
 public:
  // Loads every block and the whole model, then runs one sample through them and checks each
  // block's output shape against the manifest. Throws InputError naming the file and what is
  // wrong (a missing or corrupt TorchScript file, a shape the manifest does not say), and
  // QueryError for a device this LibTorch cannot use.
  explicit TorchModel(ExportedModel manifest, ComputeDevice device = ComputeDevice::Cpu);
  ~TorchModel();
  TorchModel(const TorchModel&) = delete;
  TorchModel& operator=(const TorchModel&) = delete;

  const ExportedModel& manifest() const { return manifest_; }
  ComputeDevice device() const;
  std::size_t blocks() const { return manifest_.blocks.size(); }

  // Blocks [begin, end) in order on `input` (its samples must have block begin's input shape).
  // Both return when the output is computed: on a GPU, whose kernels run after their launch
  // returns, after the device has finished them, so that a caller's clock (the executor's batch
  // time, the profiler's) measures the work and not its launch.
  Tensor run(std::size_t begin, std::size_t end, const Tensor& input) const;
  Tensor run_whole(const Tensor& input) const;

  // The input of a batch of requests: each sample drawn from a generator seeded by its request
  // id, so a worker makes the same input as a check that knows only the id; in the input's own
  // domain (floats in [-1, 1), token ids below the vocabulary, coin flips for bool).
  Tensor synthesize_input(std::span<const std::uint64_t> request_ids) const;

 private:
  struct Impl;
  ExportedModel manifest_;
  std::unique_ptr<Impl> impl_;
};

// Intra-op threads LibTorch uses in this process (a CPU "share" is a number of threads).
void set_threads(int threads);
int threads();

}  // namespace servescope::torchexec
