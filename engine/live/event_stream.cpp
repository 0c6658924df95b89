#include "engine/live/event_stream.h"

#include "engine/live/byte_codec.h"
#include "model/core/text.h"

namespace servescope::engine::live {
namespace {

enum class Kind : std::uint8_t { Arrival = 1, Drop, Batch, Complete, Dispatch, Transfer, Notice };

void put(ByteWriter& w, const Request& r) {
  w.u64(r.id);
  w.u32(r.model);
  w.u32(r.target);
  w.i64(r.arrival.count_ns());
  w.i64(r.deadline.count_ns());
  w.u8(r.internal ? 1 : 0);
}
constexpr std::size_t kRequestBytes = 8 + 4 + 4 + 8 + 8 + 1;

Time time(ByteReader& r, const char* field) {
  return Duration::nanoseconds(r.i64(field));
}

Request get_request(ByteReader& r) {
  Request q;
  q.id = r.u64("request id");
  q.model = r.u32("model");
  q.target = r.u32("target");
  q.arrival = time(r, "arrival");
  q.deadline = time(r, "deadline");
  q.internal = r.u8("internal") != 0;
  return q;
}

void put(ByteWriter& w, const Batch& b) {
  w.u64(b.id);
  w.u32(b.model);
  w.u32(b.gpu);
  w.i64(b.start.count_ns());
  w.i64(b.predicted_end.count_ns());
  w.u32(b.stage);
  w.u8(b.final_stage ? 1 : 0);
  w.u32(b.kernel);
  w.i64(b.window_open.count_ns());
  w.i64(b.window_close.count_ns());
  w.u32(static_cast<std::uint32_t>(b.requests.size()));
  for (const auto& r : b.requests)
    put(w, r);
}

Batch get_batch(ByteReader& r) {
  Batch b;
  b.id = r.u64("batch id");
  b.model = r.u32("model");
  b.gpu = r.u32("gpu");
  b.start = time(r, "start");
  b.predicted_end = time(r, "predicted end");
  b.stage = r.u32("stage");
  b.final_stage = r.u8("final stage") != 0;
  b.kernel = r.u32("kernel");
  b.window_open = time(r, "window open");
  b.window_close = time(r, "window close");
  b.requests.resize(r.count(kRequestBytes, "batch size"));
  for (auto& q : b.requests)
    q = get_request(r);
  return b;
}

}  // namespace

void EventEncoder::on_arrival(const Request& r) {
  ByteWriter w(bytes_);
  w.u8(static_cast<std::uint8_t>(Kind::Arrival));
  put(w, r);
  ++records_;
}

void EventEncoder::on_drop(const Request& r, DropReason why, Time when) {
  ByteWriter w(bytes_);
  w.u8(static_cast<std::uint8_t>(Kind::Drop));
  put(w, r);
  w.u8(static_cast<std::uint8_t>(why));
  w.i64(when.count_ns());
  ++records_;
}

void EventEncoder::on_batch(const Batch& b, Time start, Time end, bool completed) {
  ByteWriter w(bytes_);
  w.u8(static_cast<std::uint8_t>(Kind::Batch));
  put(w, b);
  w.i64(start.count_ns());
  w.i64(end.count_ns());
  w.u8(completed ? 1 : 0);
  ++records_;
}

void EventEncoder::on_complete(const Request& r, Time start, Time end) {
  ByteWriter w(bytes_);
  w.u8(static_cast<std::uint8_t>(Kind::Complete));
  put(w, r);
  w.i64(start.count_ns());
  w.i64(end.count_ns());
  ++records_;
}

void EventEncoder::on_dispatch(const Batch& b, Time now) {
  ByteWriter w(bytes_);
  w.u8(static_cast<std::uint8_t>(Kind::Dispatch));
  put(w, b);
  w.i64(now.count_ns());
  ++records_;
}

void EventEncoder::on_transfer(const Transfer& t, Time start, Time end) {
  ByteWriter w(bytes_);
  w.u8(static_cast<std::uint8_t>(Kind::Transfer));
  w.u64(t.id);
  w.u32(t.from_gpu);
  w.u32(t.to_gpu);
  w.u64(t.bytes);
  w.i64(t.not_before.count_ns());
  w.u64(t.batch);
  w.i64(start.count_ns());
  w.i64(end.count_ns());
  ++records_;
}

void EventEncoder::on_notice(const RunNotice& n) {
  ByteWriter w(bytes_);
  w.u8(static_cast<std::uint8_t>(Kind::Notice));
  w.i64(n.time.count_ns());
  w.u8(static_cast<std::uint8_t>(n.kind));
  // A log line may name anything; the frame carries a bounded prefix of it, whole characters.
  w.text(utf8_prefix(n.text, kMaxNoticeTextBytes));
  w.u32(static_cast<std::uint32_t>(n.gpus.size()));
  for (const auto g : n.gpus)
    w.u32(g);
  ++records_;
}

std::uint64_t replay_events(std::span<const std::uint8_t> bytes, RunRecorder& recorder) {
  ByteReader r(bytes, "events frame");
  std::uint64_t n = 0;
  while (!r.done()) {
    const auto kind = r.u8("event kind");
    switch (static_cast<Kind>(kind)) {
      case Kind::Arrival:
        recorder.on_arrival(get_request(r));
        break;
      case Kind::Drop: {
        const auto q = get_request(r);
        const auto why = r.u8("drop reason");
        if (why >= kDropReasonCount) throw ProtocolError("events frame: unknown drop reason " + std::to_string(why));
        recorder.on_drop(q, static_cast<DropReason>(why), time(r, "drop time"));
        break;
      }
      case Kind::Batch: {
        const auto b = get_batch(r);
        const auto start = time(r, "run start");
        const auto end = time(r, "run end");
        recorder.on_batch(b, start, end, r.u8("completed") != 0);
        break;
      }
      case Kind::Complete: {
        const auto q = get_request(r);
        const auto start = time(r, "start");
        recorder.on_complete(q, start, time(r, "end"));
        break;
      }
      case Kind::Dispatch: {
        const auto b = get_batch(r);
        recorder.on_dispatch(b, time(r, "dispatch time"));
        break;
      }
      case Kind::Transfer: {
        Transfer t;
        t.id = r.u64("transfer id");
        t.from_gpu = r.u32("from gpu");
        t.to_gpu = r.u32("to gpu");
        t.bytes = r.u64("bytes");
        t.not_before = time(r, "not before");
        t.batch = r.u64("batch id");
        const auto start = time(r, "start");
        recorder.on_transfer(t, start, time(r, "end"));
        break;
      }
      case Kind::Notice: {
        RunNotice notice;
        notice.time = time(r, "notice time");
        const auto notice_kind = r.u8("notice kind");
        if (notice_kind >= kNoticeKindCount)
          throw ProtocolError("events frame: unknown notice kind " + std::to_string(notice_kind));
        notice.kind = static_cast<NoticeKind>(notice_kind);
        notice.text = r.text("notice text");
        if (notice.text.size() > kMaxNoticeTextBytes || !is_valid_utf8(notice.text))
          throw ProtocolError("events frame: a notice's text is not UTF-8 of at most " +
                              std::to_string(kMaxNoticeTextBytes) + " bytes");
        notice.gpus.resize(r.count(4, "notice gpus"));
        for (auto& g : notice.gpus)
          g = r.u32("notice gpu");
        recorder.on_notice(notice);
        break;
      }
      default:
        throw ProtocolError("events frame: unknown event kind " + std::to_string(kind));
    }
    ++n;
  }
  return n;
}

}  // namespace servescope::engine::live
