// The live scheduler (README "Live deployment"): the plan's data plane, the very object the
// simulator runs, serving real requests against the wall clock. It is the data plane's Clock (steady
// time since the scheduler started), Executor (batches go to the worker process that holds each vGPU
// slot, transfers to the worker that sends the feature map) and OutcomeSink (each request's outcome
// goes back to the load generator that sent it, exactly once). One thread, one poll loop: the
// data plane is single-threaded by design (seed 002 §2.4, one scheduler thread per sub-cluster).
// The loop is a host over parts with one job each: PeerServer (connections, hellos, liveness of
// the connections), WorkerRoster (which worker serves which server, which are in doubt),
// LiveTimers, PlanSwitch (flush and switch), LiveRecording (events for subscribers and the run
// file) and MetricsServer (Prometheus); this class holds what ties them to the data plane: the
// batches and transfers in flight and each request's owner.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/dataplane/spell_draws.h"
#include "engine/live/connection.h"
#include "engine/live/event_stream.h"
#include "engine/live/handshake.h"
#include "engine/live/live_recording.h"
#include "engine/live/live_timers.h"
#include "engine/live/messages.h"
#include "engine/live/metrics_server.h"
#include "engine/live/peer_server.h"
#include "engine/live/plan_switch.h"
#include "engine/live/scheduler_counters.h"
#include "engine/live/worker_roster.h"
#include "engine/serving/prepared_serving.h"

namespace servescope::engine::live {

// The peer server's options (token, address, heartbeat and liveness), and the scheduler's own.
struct SchedulerOptions : PeerServerOptions {
  std::optional<std::uint16_t> metrics_port;      // Prometheus text over HTTP at /metrics
  std::string metrics_host = "127.0.0.1";         // where that listens: loopback unless told
  std::size_t subscriber_limit_bytes = 8u << 20;  // a subscriber this far behind is dropped
  bool keep_events = false;                       // keep every event for recorded()
  // Control commands one peer may send (a token bucket: per second on average, at once); those
  // over it are ignored and counted, so a flood from one peer costs the others nothing.
  double commands_per_second = 20, command_burst = 40;
  // Plan switches may begin this often at most, whoever asks: each flushes the whole deployment.
  std::chrono::milliseconds plan_switch_interval{2000};
};

class LiveScheduler final : private Clock, private Executor, private OutcomeSink, private PeerServer::Handler {
 public:
  // Throws QueryError when the prepared system cannot run live (application requests) and
  // LiveError when it cannot listen.
  LiveScheduler(PreparedServing prepared, SchedulerOptions options, std::string scenario_name);
  ~LiveScheduler() override;

  std::uint16_t port() const { return peers_.port(); }
  std::optional<std::uint16_t> metrics_port() const;

  // Serves until `stop` is set (a signal handler's flag), then says goodbye to every peer.
  void run(const std::atomic<bool>& stop);

  const SchedulerCounters& counters() const { return counters_; }
  // How many requests are in the data plane now (arrived, not yet completed or dropped).
  std::size_t outstanding() const { return ledger_.size(); }
  std::size_t workers_connected() const;
  std::vector<std::string> missing_servers() const;
  // The run so far, from the kept events (SchedulerOptions::keep_events), as a run file holds it.
  SimulationResult recorded() const;
  std::string prometheus_text() const;
  // One line per notable happening (joins, losses, refusals), for the daemon's log.
  void set_log(std::function<void(const std::string&)> log) { log_ = std::move(log); }

  // How a GUI's `apply-plan` command becomes a new data plane: the caller knows the scenario and
  // the options (the CLI); it throws with the reason when the plan cannot run. Without it the
  // command is refused.
  using PlanPreparer = std::function<PreparedServing(const nlohmann::json& command)>;
  void set_plan_preparer(PlanPreparer preparer) { plan_preparer_ = std::move(preparer); }
  // Starts PPipe's flush-and-switch migration (digest §2.9): requests that arrive from now on are
  // held; once the current plane has finished what it holds (every batch and transfer back, or
  // `flush_limit` passed), the new plane takes over and gets the held requests. Throws QueryError
  // when a switch is already under way or the new plane serves other models.
  void apply_plan(PreparedServing next, Duration flush_limit = Duration::seconds(10));
  bool switching() const { return switch_.under_way(); }
  std::uint64_t plan_switches() const { return switch_.switches(); }
  // Every plan's part of the run when the plan changed while recording (the last is recorded()).
  std::vector<SimulationResult> recorded_before_switches() const;
  // Why the recording stopped keeping events (it kept what came before), or empty.
  const std::string& recording_failure() const { return recording_.failure(); }

 private:
  struct InFlightBatch {
    Batch batch;
    std::uint32_t server = 0;
    Time dispatched;
    Time start;          // when it was to start on its slot
    Duration allowance;  // its run, and the lateness allowed on top before its worker is doubted
  };
  struct InFlightTransfer {
    Transfer transfer;
    std::uint32_t sender = 0, receiver = 0;  // servers
    Time issued;
    Time overdue;  // given up as lost after this
  };
  struct Owner {
    std::uint64_t peer = 0;  // the load generator's connection id
    std::uint64_t client_id = 0;
    Request request;
  };

  // Clock
  Time now() const override;
  TimerId create_timer(std::uint64_t token) override;
  void arm(TimerId timer, Time at) override;
  void disarm(TimerId timer) override;
  // Executor
  void execute(Batch batch) override;
  bool preempt(BatchId batch, std::uint32_t gpu) override;
  void transfer(Transfer transfer) override;
  // OutcomeSink
  void dropped(const Request& request, DropReason reason) override;
  void completed(const Request& request, Time start, Time end) override;

  // PeerServer::Handler
  std::string admit(Peer& peer) override;
  nlohmann::json welcome(const Peer& peer) const override;
  void welcomed(Peer& peer) override;
  void frame(Peer& peer, const Frame& frame) override;
  void closed(Peer& peer, const std::string& why) override;
  void log(const std::string& line) const override;
  // A log line that explains the timeline (run_notice.h): logged, and recorded with the run, so
  // subscribers and the recording show it where it happened; `server`'s slots are the ones it
  // concerns (none: the whole run).
  void notice(NoticeKind kind, std::optional<std::uint32_t> server, const std::string& line);

  void handle_requests(Peer& peer, const Frame& frame);
  void handle_report(Peer& peer, const Frame& frame);
  void handle_control(Peer& peer, const Frame& frame);
  // Takes out of `requests` those whose outcome is told already (their feature map was given up,
  // their worker lost) while the plane still holds them: no worker has their input, and a later
  // stage ordered with them would fail on its worker. Returns how many were taken.
  template <typename Requests>
  std::size_t drop_ended(Requests& requests) const {
    return std::erase_if(requests, [&](const Request& r) { return !r.internal && !ledger_.contains(r.id); });
  }
  void finish_batch(std::uint64_t batch, std::int64_t run_ns);
  void finish_transfer(std::uint64_t transfer);
  void fail_transfer(std::uint64_t transfer, const std::string& why);
  // A batch or transfer id on the wire carries the plan's epoch in its top 16 bits, so a late
  // report from a plan that was switched away from cannot be taken for one of the new plan's.
  std::uint64_t wire_id(std::uint64_t id) const { return switch_.epoch() << 48 | id; }
  void lose_worker(std::uint32_t server, const std::string& why);
  void lose_batch(const InFlightBatch& lost, DropReason reason);
  void fire_due_timers();
  void publish();
  void check_liveness();
  // When `b`'s report is late enough to doubt its worker: its run and allowance after the later of
  // its planned start and its slot's last report, once it is the first outstanding batch of its
  // slot; nullopt while a batch ahead of it on the slot has not reported (it has not started).
  std::optional<Time> overdue_at(const InFlightBatch& b) const;

  void record_outcome(const Request& r, OutcomeStatus status, DropReason reason, Time end);
  nlohmann::json assignment_for(std::uint32_t server) const;
  std::uint32_t stage_end(std::uint32_t model, std::uint32_t slot) const;
  void adopt_plane();
  Peer* worker_of(std::uint32_t server);  // the open connection of the server's worker, if any
  void set_server_available(std::uint32_t server, bool available);
  void maybe_switch();
  void broadcast_status();
  std::string status_text() const;
  // Whether `peer` may send one more control command now; logs those it may not, now and then.
  bool command_allowed(Peer& peer);
  void handle_apply_plan(Peer& peer, const nlohmann::json& command);

  PreparedServing prepared_;
  NetworkLinks links_;  // the plan's, to measure how much longer a transfer took than its link's time
  std::optional<SpellDraws> runtime_draws_;  // with sampled run times (SimulationResult::sampled_runtime)
  SchedulerOptions options_;
  std::string scenario_name_;
  DataPlaneContext context_;
  // Answers /metrics on a thread of its own from a text the loop refreshes, so a slow or hostile
  // scraper never holds up dispatch.
  std::unique_ptr<MetricsServer> metrics_;
  SteadyTime metrics_refreshed_;
  SteadyTime origin_;
  // Which worker serves which server. A server whose batch report is overdue is in doubt: the
  // data plane plans without its GPUs until the worker is heard from again (or lost after a
  // second of silence).
  WorkerRoster roster_;
  std::unordered_map<BatchId, InFlightBatch> batches_;
  // Per slot, when its last batch reported: a slot runs its batches one after another, so a batch
  // behind a late one starts late, and is judged from then (overdue_at).
  std::vector<Time> slot_reported_;
  std::unordered_map<TransferId, InFlightTransfer> transfers_;
  std::unordered_map<RequestId, Owner> ledger_;
  RequestId next_request_ = 1;
  // Data-plane timers and the scheduler's own completions (work sent to a lost worker, a feature
  // map that stays on its server).
  LiveTimers timers_;
  // Where the current event started, for the dispatch overhead.
  SteadyTime event_began_;
  LiveRecording recording_;
  SchedulerCounters counters_;
  PeerServer peers_;  // workers, load generators and GUI subscribers
  SteadyTime last_status_;
  std::optional<SteadyTime> last_switch_begun_;
  std::function<void(const std::string&)> log_;
  PlanPreparer plan_preparer_;
  PlanSwitch switch_;
};

}  // namespace servescope::engine::live
