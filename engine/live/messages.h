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
// feature map to another worker. Both name their requests: an executor on real tensors makes a
// request's input from its id and keeps each request's feature map under it, so a pipeline's
// next stage finds its input whichever batch or transfer brought it.
struct RunOrder {
  std::uint64_t batch = 0;
  std::uint32_t slot = 0;  // the data plane's GPU index
  std::uint32_t model = 0;
  std::uint32_t kernel = 0;
  // The model's blocks this batch runs, [block_begin, block_end); block_end 0: the whole model.
  std::uint32_t block_begin = 0, block_end = 0;
  std::int64_t start_in_ns = 0;         // not before this long after the order arrives
  std::int64_t run_ns = 0;              // the profiled time; the executor decides the real one
  std::vector<std::uint64_t> requests;  // the scheduler's request ids, in batch order
  std::size_t size() const { return requests.size(); }
};
struct SendOrder {
  std::uint64_t transfer = 0;
  std::uint32_t from_slot = 0, to_slot = 0;
  std::uint64_t bytes = 0;  // the profile's size; an executor on real tensors sends its own
  std::int64_t start_in_ns = 0;
  std::string peer_host;  // the receiving worker's feature-map listener
  std::uint16_t peer_port = 0;
  std::uint32_t model = 0;
  std::uint32_t boundary = 0;           // the block whose input the map is (the sending stage's end)
  std::vector<std::uint64_t> requests;  // whose samples it carries, in order
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

// Worker → worker (frame `feature-map`): the transfer's number, total size, model, boundary and
// requests, then one chunk of its bytes. A feature map larger than a frame travels as several
// chunks, in order, each with the whole header so a receiver needs no state to read one.
inline constexpr std::uint64_t kFeatureMapChunkBytes = 4u << 20;
struct FeatureMapHeader {
  std::uint64_t transfer = 0;
  std::uint64_t total_bytes = 0;
  std::uint32_t model = 0, boundary = 0;
  std::vector<std::uint64_t> requests;
  std::span<const std::uint8_t> chunk;  // what followed the header in this frame
};
// The header of `order`'s map and `chunk` of its bytes (a pattern of the profiled size from an
// emulated worker, the real tensor from one on real compute). A sender appends the header and
// the chunk to its buffer apart (Connection::send); the two make this payload.
std::vector<std::uint8_t> encode_feature_map(const SendOrder& order, std::uint64_t total_bytes,
                                             std::span<const std::uint8_t> chunk);
std::vector<std::uint8_t> encode_feature_map_header(const SendOrder& order, std::uint64_t total_bytes);
FeatureMapHeader decode_feature_map(std::span<const std::uint8_t> payload);
// `bytes` of the pattern an emulated worker sends, starting at `offset` of the map; the fill
// writes it into a buffer the sender reuses.
std::vector<std::uint8_t> feature_map_pattern(std::uint64_t transfer, std::uint64_t offset, std::uint64_t bytes);
void fill_feature_map_pattern(std::span<std::uint8_t> out, std::uint64_t transfer, std::uint64_t offset);

}  // namespace servescope::engine::live
