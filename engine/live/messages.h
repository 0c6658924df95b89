// The binary payloads of the live protocol's hot frames (docs/protocol.md, "Payloads"):
// requests from the load generator and their outcomes, batch and transfer orders to workers,
// workers' reports, and feature maps between workers. Times on the wire are durations (how
// long to wait, how long it ran), never instants, so processes need not share a clock.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "engine/dataplane/request.h"

namespace servescope::engine::live {

// Load generator → scheduler (frame `request`): requests to serve now.
struct ClientRequest {
  std::uint64_t client_id = 0;  // the load generator's own number, echoed in the outcome
  std::uint32_t model = 0;      // index into the welcome's model list
  std::uint32_t target = 0;
};
std::vector<std::uint8_t> encode_requests(std::span<const ClientRequest> requests);
std::vector<ClientRequest> decode_requests(std::span<const std::uint8_t> payload);

// Scheduler → load generator (frame `outcome`): how each request ended.
enum class OutcomeStatus : std::uint8_t { OnTime = 0, Late = 1, Dropped = 2 };
struct ClientOutcome {
  std::uint64_t client_id = 0;
  OutcomeStatus status = OutcomeStatus::OnTime;
  DropReason reason = DropReason::DeadlineUnreachable;  // when dropped
  std::int64_t latency_ns = 0;                          // arrival at the scheduler to completion or drop
};
std::vector<std::uint8_t> encode_outcomes(std::span<const ClientOutcome> outcomes);
std::vector<ClientOutcome> decode_outcomes(std::span<const std::uint8_t> payload);

// Scheduler → worker (frame `batch`): run a batch on one of the worker's vGPU slots, or send a
// feature map to another worker.
struct RunOrder {
  std::uint64_t batch = 0;
  std::uint32_t slot = 0;  // the data plane's GPU index
  std::uint32_t model = 0;
  std::uint32_t kernel = 0;
  std::uint32_t size = 0;
  std::int64_t start_in_ns = 0;  // not before this long after the order arrives
  std::int64_t run_ns = 0;       // the profiled time; the executor decides the real one
};
struct SendOrder {
  std::uint64_t transfer = 0;
  std::uint32_t from_slot = 0, to_slot = 0;
  std::uint64_t bytes = 0;
  std::int64_t start_in_ns = 0;
  std::string peer_host;  // the receiving worker's feature-map listener
  std::uint16_t peer_port = 0;
};
using WorkerOrder = std::variant<RunOrder, SendOrder>;
std::vector<std::uint8_t> encode_order(const WorkerOrder& order);
WorkerOrder decode_order(std::span<const std::uint8_t> payload);

// Worker → scheduler (frame `batch-done`): a batch ran, a feature map arrived, or one could not
// be sent.
struct RunReport {
  std::uint64_t batch = 0;
  std::uint32_t slot = 0;
  std::int64_t run_ns = 0;  // how long it held the GPU
};
struct ReceiveReport {
  std::uint64_t transfer = 0;
  std::uint64_t bytes = 0;
};
// The sender could not deliver a feature map (the receiver unreachable): the scheduler gives the
// transfer up at once instead of waiting for it to time out.
struct SendFailedReport {
  std::uint64_t transfer = 0;
  std::string reason;
};
using WorkerReport = std::variant<RunReport, ReceiveReport, SendFailedReport>;
std::vector<std::uint8_t> encode_report(const WorkerReport& report);
WorkerReport decode_report(std::span<const std::uint8_t> payload);

// Worker → worker (frame `feature-map`): the transfer's number and total size, then one chunk of
// its bytes. A feature map larger than a frame travels as several chunks, in order.
inline constexpr std::uint64_t kFeatureMapChunkBytes = 4u << 20;
std::vector<std::uint8_t> encode_feature_map(std::uint64_t transfer, std::uint64_t total_bytes,
                                             std::uint64_t chunk_bytes);
struct FeatureMapHeader {
  std::uint64_t transfer = 0;
  std::uint64_t total_bytes = 0;
  std::uint64_t chunk_bytes = 0;  // what followed the header in this frame
};
FeatureMapHeader decode_feature_map(std::span<const std::uint8_t> payload);

}  // namespace servescope::engine::live
