// Where a simulation's requests come from. WorkloadArrivals turns a scenario's workloads into
// one merged, time-ordered stream (each target its own seeded generator: Poisson, Gamma, a
// rescaled trace or a piecewise-constant rate); ListArrivals replays explicit arrivals, as the
// worked examples of the papers need.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "engine/core/indexed_heap.h"
#include "engine/dataplane/request.h"
#include "model/workload/workload.h"

namespace servescope::engine {

struct Arrival {
  Time at;
  std::uint32_t model = 0;
  std::uint32_t target = 0;
  Duration slo;
};

class ArrivalSource {
 public:
  virtual ~ArrivalSource() = default;
  // The next arrival, in non-decreasing time; nullopt when exhausted.
  virtual std::optional<Arrival> next() = 0;
};

class ListArrivals final : public ArrivalSource {
 public:
  explicit ListArrivals(std::vector<Arrival> arrivals);  // sorted by time, stable
  std::optional<Arrival> next() override;

 private:
  std::vector<Arrival> arrivals_;
  std::size_t pos_ = 0;
};

// One stream of a workload target: a rate and a process.
struct ArrivalStream {
  std::uint32_t model = 0;
  std::uint32_t target = 0;
  Duration slo;
  double rate_rps = 0;
  ArrivalProcess process;
  std::vector<Duration> trace;  // loaded offsets for TraceArrivals
};

class WorkloadArrivals final : public ArrivalSource {
 public:
  // Arrivals stop at `until`. Each stream draws from its own generator seeded from `seed`.
  WorkloadArrivals(std::vector<ArrivalStream> streams, Time until, std::uint64_t seed);
  std::optional<Arrival> next() override;

 private:
  struct StreamState {
    ArrivalStream spec;
    std::mt19937_64 rng;
    Time next;
    std::size_t trace_pos = 0;
    Duration trace_base;     // offset of the current trace repetition
    double trace_scale = 1;  // trace time → our time
  };
  Time draw_after(StreamState& s, Time t);

  std::vector<StreamState> streams_;
  struct Key {
    Time t;
    std::uint32_t stream;
    bool operator<(const Key& o) const { return t < o.t || (t == o.t && stream < o.stream); }
  };
  IndexedHeap<Key> heap_;
  Time until_;
};

}  // namespace servescope::engine
