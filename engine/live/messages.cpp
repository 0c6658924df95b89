#include "engine/live/messages.h"

#include "engine/live/byte_codec.h"

namespace servescope::engine::live {
namespace {

enum class OrderKind : std::uint8_t { Run = 0, Send = 1 };
enum class ReportKind : std::uint8_t { Ran = 0, Received = 1, SendFailed = 2 };

DropReason reason_from(std::uint8_t v, const char* what) {
  if (v >= kDropReasonCount) throw ProtocolError(std::string(what) + ": unknown drop reason " + std::to_string(v));
  return static_cast<DropReason>(v);
}

void write_ids(ByteWriter& w, const std::vector<std::uint64_t>& ids) {
  w.u32(static_cast<std::uint32_t>(ids.size()));
  for (const auto id : ids)
    w.u64(id);
}

std::vector<std::uint64_t> read_ids(ByteReader& r) {
  std::vector<std::uint64_t> ids(r.count(8, "request count"));
  for (auto& id : ids)
    id = r.u64("request id");
  return ids;
}

}  // namespace

std::vector<std::uint8_t> encode_requests(std::span<const ClientRequest> requests) {
  std::vector<std::uint8_t> out;
  out.reserve(4 + requests.size() * 16);
  ByteWriter w(out);
  w.u32(static_cast<std::uint32_t>(requests.size()));
  for (const auto& r : requests) {
    w.u64(r.client_id);
    w.u32(r.model);
    w.u32(r.target);
  }
  return out;
}

std::vector<ClientRequest> decode_requests(std::span<const std::uint8_t> payload) {
  ByteReader r(payload, "request frame");
  std::vector<ClientRequest> out(r.count(16, "request count"));
  for (auto& c : out) {
    c.client_id = r.u64("request id");
    c.model = r.u32("model");
    c.target = r.u32("target");
  }
  r.expect_end();
  return out;
}

std::vector<std::uint8_t> encode_outcomes(std::span<const ClientOutcome> outcomes) {
  std::vector<std::uint8_t> out;
  out.reserve(4 + outcomes.size() * 18);
  ByteWriter w(out);
  w.u32(static_cast<std::uint32_t>(outcomes.size()));
  for (const auto& o : outcomes) {
    w.u64(o.client_id);
    w.u8(static_cast<std::uint8_t>(o.status));
    w.u8(static_cast<std::uint8_t>(o.reason));
    w.i64(o.latency_ns);
  }
  return out;
}

std::vector<ClientOutcome> decode_outcomes(std::span<const std::uint8_t> payload) {
  ByteReader r(payload, "outcome frame");
  std::vector<ClientOutcome> out(r.count(18, "outcome count"));
  for (auto& o : out) {
    o.client_id = r.u64("request id");
    const auto status = r.u8("status");
    if (status > static_cast<std::uint8_t>(OutcomeStatus::Dropped))
      throw ProtocolError("outcome frame: unknown status " + std::to_string(status));
    o.status = static_cast<OutcomeStatus>(status);
    o.reason = reason_from(r.u8("drop reason"), "outcome frame");
    o.latency_ns = r.i64("latency");
  }
  r.expect_end();
  return out;
}

std::vector<std::uint8_t> encode_order(const WorkerOrder& order) {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  if (const auto* run = std::get_if<RunOrder>(&order)) {
    w.u8(static_cast<std::uint8_t>(OrderKind::Run));
    w.u64(run->batch);
    w.u32(run->slot);
    w.u32(run->model);
    w.u32(run->kernel);
    w.u32(run->block_begin);
    w.u32(run->block_end);
    w.i64(run->start_in_ns);
    w.i64(run->run_ns);
    write_ids(w, run->requests);
  } else {
    const auto& send = std::get<SendOrder>(order);
    w.u8(static_cast<std::uint8_t>(OrderKind::Send));
    w.u64(send.transfer);
    w.u32(send.from_slot);
    w.u32(send.to_slot);
    w.u64(send.bytes);
    w.i64(send.start_in_ns);
    w.text(send.peer_host);
    w.u16(send.peer_port);
    w.u32(send.model);
    w.u32(send.boundary);
    write_ids(w, send.requests);
  }
  return out;
}

WorkerOrder decode_order(std::span<const std::uint8_t> payload) {
  ByteReader r(payload, "batch frame");
  const auto kind = r.u8("kind");
  if (kind == static_cast<std::uint8_t>(OrderKind::Run)) {
    RunOrder o;
    o.batch = r.u64("batch id");
    o.slot = r.u32("slot");
    o.model = r.u32("model");
    o.kernel = r.u32("kernel");
    o.block_begin = r.u32("first block");
    o.block_end = r.u32("block end");
    o.start_in_ns = r.i64("start delay");
    o.run_ns = r.i64("run time");
    o.requests = read_ids(r);
    r.expect_end();
    if (o.run_ns < 0 || o.start_in_ns < 0) throw ProtocolError("batch frame: negative time");
    if (o.block_end != 0 && o.block_begin >= o.block_end)
      throw ProtocolError("batch frame: blocks " + std::to_string(o.block_begin) + ".." + std::to_string(o.block_end) +
                          " are empty");
    if (o.requests.empty()) throw ProtocolError("batch frame: a batch of no requests");
    return o;
  }
  if (kind == static_cast<std::uint8_t>(OrderKind::Send)) {
    SendOrder o;
    o.transfer = r.u64("transfer id");
    o.from_slot = r.u32("from slot");
    o.to_slot = r.u32("to slot");
    o.bytes = r.u64("bytes");
    o.start_in_ns = r.i64("start delay");
    o.peer_host = r.text("peer host");
    o.peer_port = r.u16("peer port");
    o.model = r.u32("model");
    o.boundary = r.u32("boundary");
    o.requests = read_ids(r);
    r.expect_end();
    if (o.start_in_ns < 0) throw ProtocolError("batch frame: negative time");
    return o;
  }
  throw ProtocolError("batch frame: unknown kind " + std::to_string(kind));
}

std::vector<std::uint8_t> encode_report(const WorkerReport& report) {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  if (const auto* ran = std::get_if<RunReport>(&report)) {
    w.u8(static_cast<std::uint8_t>(ReportKind::Ran));
    w.u64(ran->batch);
    w.u32(ran->slot);
    w.i64(ran->run_ns);
  } else if (const auto* got = std::get_if<ReceiveReport>(&report)) {
    w.u8(static_cast<std::uint8_t>(ReportKind::Received));
    w.u64(got->transfer);
    w.u64(got->bytes);
  } else {
    const auto& failed = std::get<SendFailedReport>(report);
    w.u8(static_cast<std::uint8_t>(ReportKind::SendFailed));
    w.u64(failed.transfer);
    w.text(failed.reason.substr(0, 512));
  }
  return out;
}

WorkerReport decode_report(std::span<const std::uint8_t> payload) {
  ByteReader r(payload, "batch-done frame");
  const auto kind = r.u8("kind");
  if (kind == static_cast<std::uint8_t>(ReportKind::Ran)) {
    RunReport o;
    o.batch = r.u64("batch id");
    o.slot = r.u32("slot");
    o.run_ns = r.i64("run time");
    r.expect_end();
    if (o.run_ns < 0) throw ProtocolError("batch-done frame: negative run time");
    return o;
  }
  if (kind == static_cast<std::uint8_t>(ReportKind::Received)) {
    ReceiveReport o;
    o.transfer = r.u64("transfer id");
    o.bytes = r.u64("bytes");
    r.expect_end();
    return o;
  }
  if (kind == static_cast<std::uint8_t>(ReportKind::SendFailed)) {
    SendFailedReport o;
    o.transfer = r.u64("transfer id");
    o.reason = r.text("reason");
    r.expect_end();
    return o;
  }
  throw ProtocolError("batch-done frame: unknown kind " + std::to_string(kind));
}

std::vector<std::uint8_t> encode_feature_map_header(const SendOrder& order, std::uint64_t total_bytes) {
  std::vector<std::uint8_t> out;
  out.reserve(28 + 8 * order.requests.size());
  ByteWriter w(out);
  w.u64(order.transfer);
  w.u64(total_bytes);
  w.u32(order.model);
  w.u32(order.boundary);
  write_ids(w, order.requests);
  return out;
}

std::vector<std::uint8_t> encode_feature_map(const SendOrder& order, std::uint64_t total_bytes,
                                             std::span<const std::uint8_t> chunk) {
  auto out = encode_feature_map_header(order, total_bytes);
  out.insert(out.end(), chunk.begin(), chunk.end());
  return out;
}

FeatureMapHeader decode_feature_map(std::span<const std::uint8_t> payload) {
  ByteReader r(payload, "feature-map frame");
  FeatureMapHeader h;
  h.transfer = r.u64("transfer id");
  h.total_bytes = r.u64("total bytes");
  h.model = r.u32("model");
  h.boundary = r.u32("boundary");
  h.requests = read_ids(r);
  h.chunk = payload.subspan(payload.size() - r.remaining());
  return h;
}

std::vector<std::uint8_t> feature_map_pattern(std::uint64_t transfer, std::uint64_t offset, std::uint64_t bytes) {
  std::vector<std::uint8_t> out(bytes);
  fill_feature_map_pattern(out, transfer, offset);
  return out;
}

void fill_feature_map_pattern(std::span<std::uint8_t> out, std::uint64_t transfer, std::uint64_t offset) {
  // Emulated workers send a pattern of the profiled size so the network carries what it would.
  for (std::uint64_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<std::uint8_t>((offset + i) * 131 + transfer);
}

}  // namespace servescope::engine::live
