// A worker's feature maps between pipeline stages (PPipe, seed 000 §4.5; docs/protocol.md
// "Payloads"): each request's sample at a block boundary, kept under (model, boundary, request id)
// from the stage that made it, or the transfer that brought it, until the next stage takes it.
// Keyed per request because a stage's batch is formed anew: it gathers samples that several batches
// or transfers produced. Samples a dropped request leaves behind are forgotten after a while, so
// the store cannot grow without bound. Thread-safe: slot threads and the worker's loop share it.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "torchexec/torch_model.h"

namespace servescope::torchexec {

class FeatureStore {
 public:
  using Clock = std::chrono::steady_clock;

  // Keeps each sample of `batch` (in `requests` order) at `boundary`.
  void put(std::uint32_t model, std::uint32_t boundary, const std::vector<std::uint64_t>& requests,
           const Tensor& batch);
  // The samples of `requests` at `boundary` as one batch, removed from the store. Throws
  // QueryError naming the first request whose sample is not here.
  Tensor take(std::uint32_t model, std::uint32_t boundary, const std::vector<std::uint64_t>& requests);
  // Forgets samples kept before `before` (their requests were dropped between stages).
  std::size_t forget_before(Clock::time_point before);
  void clear();
  std::size_t size() const;

 private:
  using Key = std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>;
  struct Kept {
    Tensor sample;
    Clock::time_point since;
  };
  mutable std::mutex mutex_;
  std::map<Key, Kept> kept_;
};

}  // namespace servescope::torchexec
