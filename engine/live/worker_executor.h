// How a worker runs the batches the scheduler sends it, one FIFO per vGPU slot as on a real MPS
// process (issue 9). The emulated executor holds each slot for the profiled time, optionally
// with noise, and needs no GPU; a CUDA executor (a calibrated kernel per slot under MPS
// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE) plugs in behind the same interface where CUDA is built.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include "engine/live/messages.h"

namespace servescope::engine::live {

using SteadyClock = std::chrono::steady_clock;

class WorkerExecutor {
 public:
  virtual ~WorkerExecutor() = default;
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
