// A subscriber to a running deployment (README "Live deployment", GUI live mode; the anchors'
// streaming, docs gui-anchors §0 item 6): connects to the scheduler as a `gui` peer, folds the
// events it streams into a LiveRun on its own thread, and hands the viewer what arrived since it
// last took (timeline chunks, counters) and a status (connected workers, event rate, how far the
// stream lags the scheduler's clock). Qt-free, so the GUI wraps it in a worker thread and tests
// drive it directly. When the scheduler goes away it reconnects; a restarted scheduler is a new
// run.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/run_series.h"
#include "engine/live/live_run.h"
#include "engine/live/tls.h"
#include "engine/live/wire_format.h"
#include "engine/timeline/timeline_data.h"

namespace servescope::engine::live {

struct SubscriberOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 7070;
  std::string token;
  std::string name = "gui";
  std::shared_ptr<const TlsContext> tls;  // mutual TLS (null: plain TCP)
  std::chrono::milliseconds reconnect_every{500};
  // Timeline detail nobody took (take_timeline) is let go this long after it ended, so a viewer
  // that stalls does not grow the subscriber.
  Duration keep_untaken = Duration::seconds(120);
};

struct LiveStatus {
  bool connected = false;
  std::string message;    // what happened last ("connected", "scheduler gone: …")
  std::string scenario;   // from the welcome
  bool tls = false;       // the connection is encrypted
  bool insecure = false;  // plain TCP beyond loopback: token and traffic readable on the network
  std::uint64_t run = 0;  // 1, 2, …: a new run each time a (restarted) scheduler welcomed us
  std::uint64_t events = 0;
  double events_per_s = 0;  // over the last second or so
  Duration lag;             // how old the newest event of the last `events` frame was on arrival
  Time scheduler_now;       // estimated, on the run's clock (0: when this subscriber joined)
  // Where the run's clock starts on the scheduler's (when this subscriber joined, or the plan
  // changed): the scheduler's time of an event is its time on the run's clock plus this. Views
  // label every time on the scheduler's clock, the time since the deployment started.
  Duration run_origin;
  std::size_t workers_connected = 0, workers_expected = 0;
  std::vector<std::string> missing_servers;
  std::uint64_t outstanding = 0;  // requests in the data plane, at the last status
  bool switching = false;         // a plan switch is flushing the current plane
  std::string last_reply;         // the scheduler's answer to the last command
};

class LiveSubscriber {
 public:
  explicit LiveSubscriber(SubscriberOptions options);
  ~LiveSubscriber();

  // Follows the deployment until `stop` is set (call on a thread of its own). Throws
  // RefusedError when the scheduler refuses this subscriber (a wrong token).
  void run(const std::atomic<bool>& stop);

  // Thread-safe, from any thread:
  LiveStatus status() const;
  // The run's aggregates so far, without its timeline (nullopt before the first welcome).
  std::optional<SimulationResult> aggregates() const;
  // What the run's timeline gained since the last take: a viewer merges it into a timeline of its
  // own (timeline_growth.h), so a refresh costs what arrived, not the run. When the run is not
  // `last_run` (the run the caller last took), `layout` carries the new run's slots and models
  // and the chunk starts that run. Nullopt before the first welcome.
  struct TimelineTake {
    std::uint64_t run = 0;
    std::optional<TimelineData> layout;
    TimelineChunk chunk;
    Duration run_origin;  // LiveStatus::run_origin of this run, taken with it
  };
  std::optional<TimelineTake> take_timeline(std::uint64_t last_run);
  // SLO attainment and goodput per second so far, straight from the run's counters: no copy of
  // the timeline (nullopt before the first welcome).
  struct Curves {
    Series attainment_pct, goodput_rps;  // x: seconds on the run's clock
    Duration run_origin;                 // LiveStatus::run_origin of this run, taken with them
  };
  // At most `max_points` points each: seconds merged into wider bins as the session grows.
  std::optional<Curves> curves(std::size_t max_points = 600) const;
  // Sends a control command (e.g. {"command": "apply-plan", "plan": …}) on the next turn of the
  // subscriber's loop; the answer arrives as LiveStatus::last_reply.
  void send_command(const nlohmann::json& command);
  // Bumped whenever events were folded; lets a viewer skip a refresh when nothing changed.
  std::uint64_t generation() const { return generation_.load(); }

 private:
  void serve(class Connection& conn, const std::string& welcome, std::vector<Frame> frames,
             const std::atomic<bool>& stop);
  SubscriberOptions options_;
  mutable std::mutex mutex_;
  std::unique_ptr<LiveRun> run_;
  LiveStatus status_;
  std::chrono::steady_clock::time_point origin_estimate_;  // local time of the scheduler's 0
  Time run_origin_;                                        // the scheduler's time of the run's 0
  std::atomic<std::uint64_t> generation_{0};
  std::vector<std::string> outbox_;
};

}  // namespace servescope::engine::live
