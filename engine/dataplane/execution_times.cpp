#include "engine/dataplane/execution_times.h"

#include <algorithm>

#include "model/core/error.h"

namespace servescope::engine {

ExecutionTimes::ExecutionTimes(std::vector<std::vector<BatchLatency>> latency, std::vector<std::uint32_t> gpu_class)
    : latency_(std::move(latency)), first_row_(latency_.size()), gpu_class_(std::move(gpu_class)) {
  for (std::uint32_t m = 0; m < first_row_.size(); ++m)
    first_row_[m] = m;
}

ExecutionTimes ExecutionTimes::with_kernels(std::vector<std::vector<std::vector<BatchLatency>>> latency,
                                            std::vector<std::uint32_t> gpu_class) {
  ExecutionTimes t;
  for (auto& kernels : latency) {
    t.first_row_.push_back(static_cast<std::uint32_t>(t.latency_.size()));
    for (auto& row : kernels)
      t.latency_.push_back(std::move(row));
  }
  t.gpu_class_ = std::move(gpu_class);
  return t;
}

ExecutionTimes ExecutionTimes::uniform(std::vector<BatchLatency> per_model, std::size_t gpus) {
  std::vector<std::vector<BatchLatency>> latency;
  latency.reserve(per_model.size());
  for (auto& l : per_model)
    latency.push_back({std::move(l)});
  return ExecutionTimes(std::move(latency), std::vector<std::uint32_t>(gpus, 0));
}

void ExecutionTimes::reclass(std::uint32_t gpu, GpuShare share) {
  const auto it = std::ranges::find(class_share_, share);
  if (it == class_share_.end()) throw QueryError("no timing for GPU share " + share.to_string());
  gpu_class_[gpu] = static_cast<std::uint32_t>(it - class_share_.begin());
}

bool ExecutionTimes::has_spread() const {
  for (const auto& row : latency_)
    for (const auto& l : row)
      if (l.has_spread()) return true;
  return false;
}

}  // namespace servescope::engine
