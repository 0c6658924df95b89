// The live load generator (README "Live deployment"): sends requests to the scheduler at a rate and
// arrival process (Poisson, Gamma with a shape, a replayed trace), as the simulator's workloads do
// with the same generators, and records how each request ended. Its report reconciles with the
// scheduler's counts: every request sent ends as completed (on time or late) or dropped with a
// reason, or is named as lost with the scheduler; none disappears.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <iosfwd>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/dataplane/request.h"
#include "engine/live/tls.h"
#include "engine/metrics/latency_histogram.h"
#include "model/workload/workload.h"

namespace servescope::engine::live {

struct LoadOptions {
  std::string token;
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  std::string name = "loadgen";
  std::shared_ptr<const TlsContext> tls;  // mutual TLS (null: plain TCP)
  double rate_rps = 100;
  ArrivalProcess arrival = PoissonArrivals{};
  std::vector<Duration> trace;  // the offsets of a TraceArrivals process, loaded
  Duration duration = Duration::seconds(10);
  std::uint64_t seed = 1;
  std::vector<std::string> models;                  // only these (evenly); empty: the scheduler's workload mix
  Duration coalesce = Duration::microseconds(100);  // requests due this close together share a frame
  std::chrono::milliseconds ready_timeout{10000};   // for the scheduler, and every worker the plan needs
  std::chrono::milliseconds drain_timeout{0};       // for the last outcomes; 0: 4 × the largest SLO + 2 s
  // CSV rows id,model,sent_us,outcome,reason,latency_us: one for every request sent, its outcome
  // on_time, late, dropped (with the reason), scheduler_lost or no_outcome (no latency for those two).
  std::ostream* per_request = nullptr;
};

struct LoadReport {
  std::vector<std::string> models;
  std::uint64_t sent = 0, on_time = 0, late = 0, dropped = 0;
  std::array<std::uint64_t, kDropReasonCount> dropped_by_reason{};
  std::uint64_t scheduler_lost = 0;  // outstanding when the scheduler connection broke
  std::uint64_t no_outcome = 0;      // still unanswered when the drain timed out: a reconciliation failure
  std::vector<std::uint64_t> sent_by_model, on_time_by_model;
  LatencyHistogram latency{6};     // as the scheduler measured it (arrival to end)
  LatencyHistogram round_trip{6};  // as this process saw it (send to outcome)
  double duration_s = 0;           // of sending
  std::uint64_t reconnects = 0;

  double attainment() const;   // on time / sent
  double goodput_rps() const;  // on time / duration
  bool reconciled() const { return sent == on_time + late + dropped + scheduler_lost && no_outcome == 0; }
  // Requests the deployment lost, not served nor missed: dropped as worker-lost, or outstanding
  // when the scheduler went.
  std::uint64_t lost() const {
    return dropped_by_reason[static_cast<std::size_t>(DropReason::WorkerLost)] + scheduler_lost;
  }
  nlohmann::json to_json() const;
};

// Throws LiveError when the scheduler refuses (a wrong token) or never becomes ready.
LoadReport run_load(const LoadOptions& options, const std::atomic<bool>& stop,
                    const std::function<void(const std::string&)>& log = {});

// "poisson", "gamma:SHAPE" or "trace:FILE" (the file's offsets go to `trace`); throws QueryError.
ArrivalProcess parse_arrival(const std::string& text, std::vector<Duration>& trace);

}  // namespace servescope::engine::live
