// How long each batch really takes on each GPU: the timing table an executor runs by, per
// model, kernel (a pipeline partition's executable, PPipe seed 000 §4) and GPU class (a GPU
// type and share). A seam type: the serving families build it from their deployments and the
// simulator and the live scheduler consume it, so it lives with the data-plane interfaces.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/dataplane/batch_latency.h"
#include "model/profile/gpu_share.h"

namespace servescope::engine {

// How long batches really take on each simulated GPU: ℓ per (model, GPU class), where a class
// is a GPU type and share. The same profiles the data plane plans with, unless a test says
// otherwise. Indexed by class, not by GPU, so 1,000 models on 1,024 GPUs stay small and hot.
class ExecutionTimes {
 public:
  // latency[model][class]; gpu_class[gpu] names each GPU's class. One kernel per model.
  ExecutionTimes(std::vector<std::vector<BatchLatency>> latency, std::vector<std::uint32_t> gpu_class);
  // latency[model][kernel][class]: models that run as several executables (pipeline partitions).
  // A kernel need only be timed on the classes it is sent to.
  static ExecutionTimes with_kernels(std::vector<std::vector<std::vector<BatchLatency>>> latency,
                                     std::vector<std::uint32_t> gpu_class);
  // Every GPU of one class.
  static ExecutionTimes uniform(std::vector<BatchLatency> per_model, std::size_t gpus);
  Duration of(std::uint32_t model, std::uint32_t kernel, std::uint32_t gpu, int batch) const {
    return latency_[first_row_[model] + kernel][gpu_class_[gpu]].at(batch);
  }
  // The same batch drawn from its measured distribution at quantile u (BatchLatency::sample).
  Duration sample(std::uint32_t model, std::uint32_t kernel, std::uint32_t gpu, int batch, double u) const {
    return latency_[first_row_[model] + kernel][gpu_class_[gpu]].sample(batch, u);
  }
  // Whether any entry keeps a measured distribution: with none, sampling changes nothing.
  bool has_spread() const;
  // Which share each class is, so a GPU can be moved to another class when it is re-split.
  void set_class_shares(std::vector<GpuShare> shares) { class_share_ = std::move(shares); }
  // Throws QueryError when no class has that share.
  void reclass(std::uint32_t gpu, GpuShare share);

 private:
  ExecutionTimes() = default;
  std::vector<std::vector<BatchLatency>> latency_;  // [row][class]
  std::vector<std::uint32_t> first_row_;            // a model's kernel 0
  std::vector<std::uint32_t> gpu_class_;
  std::vector<GpuShare> class_share_;
};

}  // namespace servescope::engine
