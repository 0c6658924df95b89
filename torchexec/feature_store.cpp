#include "torchexec/feature_store.h"

#include <string>

#include "model/core/error.h"

namespace servescope::torchexec {

void FeatureStore::put(std::uint32_t model, std::uint32_t boundary, const std::vector<std::uint64_t>& requests,
                       const Tensor& batch) {
  auto samples = batch.samples();
  if (samples.size() != requests.size())
    throw QueryError("a batch of " + std::to_string(samples.size()) + " samples for " +
                     std::to_string(requests.size()) + " requests");
  const auto now = Clock::now();
  const std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < requests.size(); ++i)
    kept_.insert_or_assign(Key{model, boundary, requests[i]}, Kept{std::move(samples[i]), now});
}

Tensor FeatureStore::take(std::uint32_t model, std::uint32_t boundary, const std::vector<std::uint64_t>& requests) {
  std::vector<Kept> taken;
  taken.reserve(requests.size());
  {
    const std::lock_guard lock(mutex_);
    for (const auto id : requests)
      if (!kept_.contains(Key{model, boundary, id}))
        throw QueryError("request " + std::to_string(id) + " has no feature map at block " + std::to_string(boundary) +
                         " of model " + std::to_string(model) + " on this worker");
    for (const auto id : requests) {
      auto node = kept_.extract(Key{model, boundary, id});
      taken.push_back(std::move(node.mapped()));
    }
  }
  std::vector<const Tensor*> parts;
  parts.reserve(taken.size());
  for (const auto& k : taken)
    parts.push_back(&k.sample);
  return Tensor::concat(parts);
}

std::size_t FeatureStore::forget_before(Clock::time_point before) {
  const std::lock_guard lock(mutex_);
  return std::erase_if(kept_, [&](const auto& kv) { return kv.second.since < before; });
}

void FeatureStore::clear() {
  const std::lock_guard lock(mutex_);
  kept_.clear();
}

std::size_t FeatureStore::size() const {
  const std::lock_guard lock(mutex_);
  return kept_.size();
}

}  // namespace servescope::torchexec
