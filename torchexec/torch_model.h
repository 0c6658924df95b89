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

#include "model/exported/exported_model.h"

namespace servescope::torchexec {

// A batch of float32 samples: shape[0] is the batch. Moves are cheap; it holds a LibTorch tensor.
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
  // The raw float32 data, row-major (what travels as a feature map), and back (on the CPU; a
  // model moves its input to its device).
  std::vector<std::uint8_t> to_bytes() const;
  static Tensor from_bytes(std::span<const std::uint8_t> bytes, const std::vector<std::int64_t>& shape);
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
enum class ComputeDevice { Cpu, Cuda };
bool cuda_available();

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
  std::size_t blocks() const { return manifest_.blocks.size(); }

  // Blocks [begin, end) in order on `input` (its samples must have block begin's input shape).
  // Both return when the output is computed: on a GPU, whose kernels run after their launch
  // returns, after the device has finished them, so that a caller's clock (the executor's batch
  // time, the profiler's) measures the work and not its launch.
  Tensor run(std::size_t begin, std::size_t end, const Tensor& input) const;
  Tensor run_whole(const Tensor& input) const;

  // The input of a batch of requests: each sample drawn from a generator seeded by its request
  // id, so a worker makes the same input as a check that knows only the id.
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
