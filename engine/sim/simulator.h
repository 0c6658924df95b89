// The discrete-event simulator: one integer clock, one event queue, simulated GPUs that run
// batches back to back in dispatch order, and a data plane that sees all of it only through
// the Clock, Executor and OutcomeSink seam. Deterministic for given inputs and seed: events at
// the same instant run completions first, then arrivals, then timers in the order they were
// armed (Symphony digest §2.4).
#pragma once

#include <deque>
#include <functional>
#include <optional>
#include <queue>
#include <random>
#include <vector>

#include "engine/core/indexed_heap.h"
#include "engine/dataplane/data_plane.h"
#include "engine/dataplane/execution_times.h"
#include "engine/dataplane/network_links.h"
#include "engine/dataplane/run_recorder.h"
#include "engine/dataplane/spell_draws.h"
#include "engine/sim/arrival_source.h"
#include "engine/sim/live_hops.h"

namespace servescope::engine {

struct SimulatorStats {
  std::uint64_t events = 0;
  std::uint64_t arrivals = 0;
  std::uint64_t batches = 0;
  Time end;  // the last event's time
};

class Simulator final : private Clock, private Executor, private OutcomeSink {
 public:
  using Progress = std::function<void(Time now)>;

  Simulator(std::size_t gpus, ExecutionTimes times, ArrivalSource& arrivals, DataPlane& plane, RunRecorder& recorder);
  // The servers' NICs; without it every transfer is instant.
  void set_network(NetworkLinks network) { network_ = std::move(network); }
  // Real GPUs do not run a batch in exactly its profiled time. With jitter j > 0 each batch takes
  // its profiled time × a factor drawn uniformly from [1 − j, 1 + j], from a generator seeded with
  // `seed`, so the run stays reproducible. What reservation feedback (PPipe §4.6) corrects.
  void set_runtime_jitter(double fraction, std::uint64_t seed);
  // Measured profiles keep each entry's distribution (issue 46): with sampling on, each batch's
  // time is drawn from it (ExecutionTimes::sample) at a quantile from a generator seeded with
  // `seed`, instead of the median; entries without one run at their table's time. Before jitter
  // and slowdown, which scale what it draws. `spells[gpu]`: how long that slot's slow and fast
  // spells last (spell_draws.h); none: each batch drawn on its own.
  void set_runtime_sampling(std::uint64_t seed, std::vector<Duration> spells = {});
  // The live loop's hops (live_hops.h): a batch starts no earlier than a drawn hop after it was
  // dispatched, and a transfer between servers ends a drawn overhead after its link's time (the
  // link is held for that time only: the rest is the processes at either end).
  void set_hops(LiveHops hops);
  // Co-location slowdown (gpu-let's interference, seed 003 §3.4): called as each batch starts,
  // with the batch and its GPU; the run time is multiplied by what it returns (≥ 1). The hook may
  // look at what else is running through running().
  using Slowdown = std::function<double(std::uint32_t gpu, const Batch& batch)>;
  void set_slowdown(Slowdown slowdown) { slowdown_ = std::move(slowdown); }
  // Contention between the slots of one device (model/profile/contention_model.h, issue 46): while
  // k slots of a device run batches, each advances at 1 / slowdown(gpu, batch size, k) of its pace
  // alone. A batch is stretched for as long as others run beside it and no longer, so every start
  // and end on a device re-times the batches running there. `device[gpu]` is each GPU's physical
  // device; a device with one slot is never re-timed, and costs nothing.
  using ContentionSlowdown = std::function<double(std::uint32_t gpu, int batch, int slots)>;
  void set_contention(const std::vector<std::uint32_t>& device, ContentionSlowdown slowdown);
  // The batch running on `gpu` now, if any.
  const Batch* running(std::uint32_t gpu) const { return running_[gpu] ? &running_[gpu]->batch : nullptr; }

  // Processes every event at or before `t`; stops early once every request has finished.
  void run_until(Time t);
  // Runs until nothing is left to do, or until `limit` (requests still queued then stay unfinished).
  void run(Time limit = kNever);
  void set_progress(Progress progress, std::uint64_t every_events = 1 << 16);

  Time current_time() const { return now_; }
  const SimulatorStats& stats() const { return stats_; }

 private:
  enum class EventClass : std::uint8_t { Completion = 0, Arrival = 1, Timer = 2 };
  struct Key {
    Time t;
    EventClass cls;
    std::uint64_t seq;
    bool operator<(const Key& o) const {
      if (t != o.t) return t < o.t;
      if (cls != o.cls) return cls < o.cls;
      return seq < o.seq;
    }
  };
  struct Running {
    Batch batch;
    Time start, end;
    // Under contention: whether it has started (a batch may be dispatched to start later), the
    // time alone it still needs as of `last`, and the slowdown it has run at since then.
    bool begun = true;
    double solo_left_ns = 0;
    double pace = 1;
    Time last;
  };
  struct InFlight {
    Time end;
    std::uint64_t seq;
    Time start;
    Transfer transfer;
    bool operator>(const InFlight& o) const { return end != o.end ? end > o.end : seq > o.seq; }
  };

  // Clock
  Time now() const override { return now_; }
  TimerId create_timer(std::uint64_t token) override;
  void arm(TimerId timer, Time at) override;
  void disarm(TimerId timer) override;
  // Executor
  void execute(Batch batch) override;
  bool preempt(BatchId batch, std::uint32_t gpu) override;
  void transfer(Transfer transfer) override;
  void reconfigure(std::uint32_t gpu, GpuShare share) override { times_.reclass(gpu, share); }
  // OutcomeSink
  void dropped(const Request& request, DropReason reason) override;
  void completed(const Request& request, Time start, Time end) override;

  void fetch_next_arrival();
  void finish_transfer();
  void start_next(std::uint32_t gpu);
  void step();
  void begin_contended(std::uint32_t gpu);
  void advance_device(std::size_t device);
  void retime_device(std::size_t device);

  ExecutionTimes times_;
  ArrivalSource& arrivals_;
  DataPlane& plane_;
  RunRecorder& recorder_;
  DataPlaneContext context_;
  IndexedHeap<Key> events_;
  std::uint32_t arrival_slot_ = 0;
  std::uint32_t first_gpu_slot_ = 1;
  std::uint32_t network_slot_ = 0;  // keyed by the earliest transfer to finish
  std::uint32_t first_timer_slot_ = 0;
  std::vector<std::uint64_t> timer_tokens_;
  std::vector<std::deque<Batch>> gpu_queue_;
  std::vector<std::optional<Running>> running_;
  std::optional<Arrival> next_arrival_;
  NetworkLinks network_;
  double jitter_ = 0;
  Slowdown slowdown_;
  ContentionSlowdown contention_;
  std::vector<std::int32_t> shared_device_;              // per GPU: its device in device_gpus_, or −1
  std::vector<std::vector<std::uint32_t>> device_gpus_;  // devices with two slots or more
  std::mt19937_64 jitter_rng_;
  std::optional<SpellDraws> sampling_;  // with sampling on
  LiveHops hops_;
  std::mt19937_64 hop_rng_;
  std::priority_queue<InFlight, std::vector<InFlight>, std::greater<>> in_flight_;
  Time now_;
  std::uint64_t seq_ = 0;
  RequestId next_request_ = 1;
  // Requests that arrived and have neither completed nor been dropped. When no arrival is left
  // and this is zero the run is over, even if a data plane keeps periodic timers armed.
  std::uint64_t outstanding_ = 0;
  SimulatorStats stats_;
  Progress progress_;
  std::uint64_t progress_every_ = 1 << 16;
  bool started_ = false;
};

}  // namespace servescope::engine
