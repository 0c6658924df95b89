// A data plane's controller as a resource (issue 25 part 3; Symphony, seed 002 §1 and §5, blames
// the baselines' controllers — Clockwork's per-request candidate search, locks on critical paths —
// for much of their lost goodput, which an idealised simulator with free decisions cannot show).
// Every event a data plane handles — a request, a batch or transfer done, a timer — takes CPU time
// on a controller of `cores` cores, first come first served, and the data plane sees the event,
// and acts on it, only when its core is done. The wrapper sits on the data-plane seam, so any data
// plane can be charged, and it measures the wall time the wrapped data plane itself spends per
// event: our implementations' own cost, which calibrates `per_event`.
//
// A live controller is also late without being busy (issue 46): on cores the workers keep busy,
// its event loop wakes after a timer was due, and it decides after a batch's end was reported.
// `lateness` models that as a delay drawn per event, seeded, from the distribution a live
// scheduler's record measured (`dispatch_overhead_us`), for the events that can start a batch
// (timers, batch and transfer ends; a request is handled as it arrives). Late events are not
// queued behind each other — lateness is the loop waking late, not work — so, unlike charging
// `per_event` on one core, it does not make events that overlapped wait in line.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <queue>
#include <random>
#include <variant>
#include <vector>

#include "engine/dataplane/data_plane.h"
#include "model/profile/latency_distribution.h"

namespace servescope::engine {

struct ControllerCost {
  int cores = 1;
  Duration per_event{};  // CPU time of one event; zero only measures
  // How late each timer, batch end and transfer end reaches the data plane, drawn per event;
  // none: on time.
  std::optional<LatencyDistribution> lateness{};
  std::uint64_t lateness_seed = 1;
};

struct ControllerStats {
  ControllerCost cost;  // what each event was charged
  std::uint64_t events = 0;
  double handler_seconds = 0;  // wall time inside the wrapped data plane, all events
  Duration total_wait;         // virtual time events waited for a core and were processed
  Duration max_wait;
  double handler_ns_per_event() const { return events ? 1e9 * handler_seconds / static_cast<double>(events) : 0; }
};

class CostedDataPlane final : public DataPlane, private Clock {
 public:
  CostedDataPlane(std::unique_ptr<DataPlane> inner, ControllerCost cost);

  std::string name() const override { return inner_->name(); }
  void start(DataPlaneContext& context) override;
  void on_request(const Request& request) override { arrive(request, false); }
  void on_timer(std::uint64_t token) override;
  void on_batch_done(const BatchDone& done) override { arrive(done, true); }
  void on_transfer_done(const TransferDone& done) override { arrive(done, true); }
  void set_gpu_available(std::uint32_t gpu, bool available) override { inner_->set_gpu_available(gpu, available); }
  void on_gpu_lost(std::uint32_t gpu) override { inner_->on_gpu_lost(gpu); }

  const ControllerStats& stats() const { return stats_; }
  DataPlane& inner() { return *inner_; }

 private:
  struct TimerFired {
    std::size_t index;         // the wrapped plane's timer, by creation
    std::uint64_t arming = 0;  // which arming of it fired
  };
  using Event = std::variant<Request, BatchDone, TransferDone, TimerFired>;
  struct Pending {
    Time done;
    std::uint64_t seq;
    Time arrived;
    Event event;
    bool operator>(const Pending& o) const { return done != o.done ? done > o.done : seq > o.seq; }
  };

  // The wrapped data plane's clock: the world's time, and timers whose firings queue for a core.
  Time now() const override { return outer_->clock.now(); }
  TimerId create_timer(std::uint64_t token) override;
  void arm(TimerId timer, Time at) override;
  void disarm(TimerId timer) override;

  void arrive(Event event, bool can_be_late);
  void deliver(const Event& event);
  void drain();

  std::unique_ptr<DataPlane> inner_;
  ControllerCost cost_;
  DataPlaneContext* outer_ = nullptr;
  std::optional<DataPlaneContext> inner_context_;
  TimerId controller_timer_ = 0;
  std::vector<std::uint64_t> inner_tokens_;  // outer token k + 1 ↔ the wrapped plane's token k
  // Per wrapped timer: its outer id, and how often it was armed or disarmed. A firing still
  // waiting for a core, or late, is stale once the plane re-arms or disarms that timer: the live
  // loop handles one event at a time, so a timer it re-armed cannot still fire at its old time.
  std::vector<TimerId> outer_timers_;
  std::vector<std::uint64_t> armings_;
  std::mt19937_64 lateness_rng_;
  std::vector<Time> core_free_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_;
  std::uint64_t seq_ = 0;
  ControllerStats stats_;
};

}  // namespace servescope::engine
