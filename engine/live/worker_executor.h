// How a worker runs the batches the scheduler sends it, one FIFO per vGPU slot as on a real MPS
// process (README "Live deployment"). The emulated executor holds each slot for the profiled time,
// optionally with noise, and needs no GPU; the LibTorch executor (torchexec/torch_executor.h,
// README "Real models") runs each batch's blocks on real tensors and hands the worker real feature
// maps to send.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/live/messages.h"

namespace servescope::engine::live {

using SteadyClock = std::chrono::steady_clock;

// The executor cannot go on: a wrong result, a model it lacks. The worker stops with it, since
// every time it reported after that would be a lie.
class ExecutorFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the scheduler says a worker runs (its welcome, and again after a plan switch): the run's
// models by index and the worker's slots with their shares of the device.
struct WorkerAssignment {
  std::vector<std::string> models;
  std::map<std::uint32_t, double> slot_share;  // slot → fraction of the device, (0, 1]
};

class WorkerExecutor {
 public:
  virtual ~WorkerExecutor() = default;
  virtual void assign(const WorkerAssignment&) {}
  // Queues a batch on its slot, received at `at`; it starts after the slot's earlier batches and
  // not before its start delay has passed.
  virtual void submit(const RunOrder& order, SteadyClock::time_point at) = 0;
  // The batches that finished by `now`, in the order they finished.
  virtual std::vector<RunReport> finished(SteadyClock::time_point now) = 0;
  // When the next batch will finish or start (nullopt: nothing queued).
  virtual std::optional<SteadyClock::time_point> next_event() const = 0;
  // Forgets every queued and running batch (the scheduler was lost and gave them up).
  virtual void clear() = 0;
  virtual std::size_t queued() const = 0;
  // A descriptor that becomes readable when a batch finishes on another thread (-1: none; the
  // worker then relies on next_event()).
  virtual int wake_fd() const { return -1; }

  // Feature maps. An executor on real tensors sends the stage's real output and keeps what it
  // receives for the next stage; the emulated one sends a pattern of the profiled size.
  virtual bool real_feature_maps() const { return false; }
  // The bytes of `order`'s map (its requests' samples at its boundary, in order). Throws
  // ExecutorFailure when this worker does not hold them.
  virtual std::vector<std::uint8_t> feature_map(const SendOrder& /*order*/) { return {}; }
  // The size a map of `samples` samples of `model` at `boundary` must have; ProtocolError-worthy
  // headers are refused before their bytes are buffered.
  virtual std::optional<std::uint64_t> feature_map_bytes(std::uint32_t /*model*/, std::uint32_t /*boundary*/,
                                                         std::size_t /*samples*/) const {
    return std::nullopt;
  }
  virtual void received_feature_map(std::uint32_t /*model*/, std::uint32_t /*boundary*/,
                                    const std::vector<std::uint64_t>& /*requests*/,
                                    std::vector<std::uint8_t> /*bytes*/) {}
};

class EmulatedExecutor final : public WorkerExecutor {
 public:
  // Each batch runs its profiled time × U[1 − noise, 1 + noise] (noise in [0, 1)).
  explicit EmulatedExecutor(double noise = 0, std::uint64_t seed = 1);
  void submit(const RunOrder& order, SteadyClock::time_point at) override;
  std::vector<RunReport> finished(SteadyClock::time_point now) override;
  std::optional<SteadyClock::time_point> next_event() const override;
  void clear() override { slots_.clear(); }
  std::size_t queued() const override;

 private:
  struct Pending {
    RunOrder order;
    SteadyClock::time_point not_before;
  };
  struct Slot {
    std::deque<Pending> queue;
    std::optional<SteadyClock::time_point> running_since, running_until;
  };
  void start_next(Slot& slot, SteadyClock::time_point now);
  double noise_;
  std::mt19937_64 rng_;
  std::map<std::uint32_t, Slot> slots_;
};

}  // namespace servescope::engine::live
