// What a live scheduler counts while it serves, and the Prometheus text its /metrics endpoint
// answers with (docs/protocol.md, "Subscribers and metrics"): per-model requests and outcomes,
// per-slot batches and busy time, transfers, peers, events and the dispatch overhead.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/dataplane/request.h"
#include "engine/metrics/latency_histogram.h"
#include "engine/serving/simulation_result.h"

namespace servescope::engine::live {

// Counters since the scheduler started, for /metrics, the CLI and the tests.
struct SchedulerCounters {
  std::vector<std::uint64_t> arrivals, on_time, late;                // per model
  std::vector<std::array<std::uint64_t, kDropReasonCount>> dropped;  // per model and reason
  std::vector<std::uint64_t> batches;                                // per GPU slot
  std::vector<std::int64_t> busy_ns;                                 // per GPU slot
  std::uint64_t transfers = 0, transfer_bytes = 0;
  std::uint64_t events = 0, event_bytes = 0;
  std::uint64_t subscribers_dropped = 0, connections_refused = 0;
  std::uint64_t connections_evicted = 0;  // closed before their hello to make room (HelloGate)
  std::uint64_t workers_lost = 0, workers_joined = 0;
  std::uint64_t workers_doubted = 0;  // times a worker's overdue batch took its GPUs out of planning
  // Requests of batches the data plane handed to a slot whose worker had gone (a pipeline stage
  // reserved there before the loss), dropped as worker-lost.
  std::uint64_t sent_to_gone_workers = 0;
  // Requests of flights the data plane ended on hearing a worker was lost, a later stage of theirs
  // reserved there (DataPlane::on_gpu_lost), dropped as worker-lost.
  std::uint64_t reserved_on_lost_workers = 0;
  std::uint64_t commands_served = 0, commands_limited = 0;  // control commands, answered or over a peer's limit
  std::uint64_t plan_switches_limited = 0;  // apply-plan refused: too soon after the last, or during one
  bool recording_failed = false;            // the --record spill stopped keeping events
  LatencyHistogram dispatch_overhead{6};    // triggering event to the batch order on its socket
  // The loop's hops (engine/sim/live_hops.h): for a batch ordered to start at once on an idle
  // slot, from its order to its start as its report tells it; for a feature map between servers,
  // its time beyond its link's.
  LatencyHistogram batch_hop{6};
  LatencyHistogram transfer_overhead{6};
  std::uint64_t requests() const;
  std::uint64_t finished() const;  // completed or dropped
};

// What the counters do not hold: the state of the scheduler now.
struct SchedulerGauges {
  std::size_t outstanding = 0;  // requests in the data plane
  std::size_t workers = 0;      // workers connected
  std::size_t subscribers = 0;  // GUI subscribers connected
};

// The Prometheus text exposition (version 0.0.4) of the counters, labelled with the run's models
// and vGPU slots (`layout`).
std::string prometheus_text(const SchedulerCounters& counters, const SimulationResult& layout,
                            const SchedulerGauges& gauges);

}  // namespace servescope::engine::live
