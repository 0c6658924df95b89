#include "engine/timeline/timeline_packing.h"

#include <algorithm>
#include <string>

#include "model/io/json_text.h"
#include "model/io/packed_bytes.h"

namespace servescope::engine {
namespace {

// Version 2 of the column layout below (version 1 lacks the drops' arrivals); a reader takes
// either and refuses any other.
constexpr const char* kEncoding = "columns-2+zlib+base64";
constexpr const char* kEncodingV1 = "columns-1+zlib+base64";

// Times read back stay within what the JSON rows accept (kMaxFileDurationUs either side of 0).
constexpr std::int64_t kMaxTimeNs = static_cast<std::int64_t>(kMaxFileDurationUs) * 1000;

// Delta coders: each column remembers its previous value.
class Delta {
 public:
  std::int64_t next(std::int64_t v) { return v - std::exchange(last_, v); }

 private:
  std::int64_t last_ = 0;
};

void put_time(VarintWriter& w, Delta& d, Time t) {
  w.signed_varint(d.next(t.count_ns()));
}
void put_length(VarintWriter& w, Time from, Time to) {
  w.varint(static_cast<std::uint64_t>((to - from).count_ns()));
}
// Ids as wrapping deltas: they are unsigned and any value round-trips.
class IdDelta {
 public:
  void put(VarintWriter& w, std::uint64_t id) {
    w.signed_varint(static_cast<std::int64_t>(id - std::exchange(last_, id)));
  }
  std::uint64_t get(VarintReader& r) { return last_ += static_cast<std::uint64_t>(r.signed_varint()); }

 private:
  std::uint64_t last_ = 0;
};

class TimeReader {
 public:
  explicit TimeReader(VarintReader& r, Time origin = Time()) : r_(r), last_(origin.count_ns()) {}
  Time next() { return at(last_, r_.signed_varint()); }
  // `from` plus a signed offset, not remembered.
  Time offset(Time from) { return at(from.count_ns(), r_.signed_varint(), false); }
  // `from` plus a length that may not be negative.
  Time after(Time from) {
    const auto length = r_.varint_at_most(static_cast<std::uint64_t>(2 * kMaxTimeNs), "a length in ns");
    return at(from.count_ns(), static_cast<std::int64_t>(length), false);
  }

 private:
  Time at(std::int64_t base, std::int64_t delta, bool remember = true) {
    std::int64_t v = 0;
    if (__builtin_add_overflow(base, delta, &v) || v < -kMaxTimeNs || v > kMaxTimeNs)
      r_.fail("a time lies beyond " + std::to_string(kMaxFileDurationUs) + " µs of the run's origin");
    if (remember) last_ = v;
    return Time::nanoseconds(v);
  }
  VarintReader& r_;
  std::int64_t last_ = 0;
};

std::uint32_t index_below(VarintReader& r, std::size_t count, const char* what) {
  if (count == 0) r.fail(std::string("a row names a ") + what + ", and the timeline has none");
  return static_cast<std::uint32_t>(r.varint_at_most(count - 1, what));
}

// The columns batches and transfers share: the batch (its change from the row before), the
// start (likewise) and the length.
template <class Row>
void write_batch_times(VarintWriter& w, const std::vector<Row>& rows) {
  IdDelta batch;
  for (const auto& s : rows)
    batch.put(w, s.batch);
  Delta start;
  for (const auto& s : rows)
    put_time(w, start, s.start);
  for (const auto& s : rows)
    put_length(w, s.start, s.end);
}

template <class Row>
void read_batch_times(VarintReader& r, std::vector<Row>& rows, Time& latest_end) {
  IdDelta batch;
  for (auto& s : rows)
    s.batch = batch.get(r);
  TimeReader start(r), end(r);
  for (auto& s : rows)
    s.start = start.next();
  for (auto& s : rows)
    latest_end = std::max(latest_end, s.end = end.after(s.start));
}

void write_spans(VarintWriter& w, const std::vector<TimelineSpan>& spans, bool windows) {
  for (const auto& s : spans)
    w.varint(s.gpu);
  for (const auto& s : spans)
    w.varint(s.model);
  write_batch_times(w, spans);
  for (const auto& s : spans)
    w.varint(s.size);
  for (const auto& s : spans)
    w.varint(s.preempted ? 1 : 0);
  for (const auto& s : spans)
    w.varint(s.late);
  IdDelta first;
  for (const auto& s : spans)
    first.put(w, s.first_request);
  if (!windows) return;
  for (const auto& s : spans)
    w.signed_varint((s.window_open - s.start).count_ns());
  for (const auto& s : spans)
    put_length(w, s.window_open, s.window_close);
}

void read_spans(VarintReader& r, std::uint64_t n, bool windows, TimelineData& t) {
  t.spans.resize(n);
  for (auto& s : t.spans)
    s.gpu = index_below(r, t.gpus.size(), "GPU slot");
  for (auto& s : t.spans)
    s.model = index_below(r, t.models.size(), "model");
  read_batch_times(r, t.spans, t.end);
  for (auto& s : t.spans)
    s.size = static_cast<std::uint32_t>(r.varint_at_most(1'000'000'000, "a batch's size"));
  for (auto& s : t.spans)
    s.preempted = r.varint_at_most(1, "a preempted flag") == 1;
  for (auto& s : t.spans)
    s.late = static_cast<std::uint32_t>(r.varint_at_most(s.size, "a batch's late requests"));
  IdDelta first;
  for (auto& s : t.spans)
    s.first_request = first.get(r);
  if (!windows) return;
  TimeReader window(r);
  for (auto& s : t.spans)
    s.window_open = window.offset(s.start);
  for (auto& s : t.spans)
    s.window_close = window.after(s.window_open);
}

void write_transfers(VarintWriter& w, const std::vector<TransferSpan>& transfers) {
  for (const auto& s : transfers)
    w.varint(s.from_gpu);
  for (const auto& s : transfers)
    w.varint(s.to_gpu);
  write_batch_times(w, transfers);
  for (const auto& s : transfers)
    w.varint(s.bytes);
}

void read_transfers(VarintReader& r, std::uint64_t n, TimelineData& t) {
  t.transfers.resize(n);
  for (auto& s : t.transfers)
    s.from_gpu = index_below(r, t.gpus.size(), "GPU slot");
  for (auto& s : t.transfers)
    s.to_gpu = index_below(r, t.gpus.size(), "GPU slot");
  read_batch_times(r, t.transfers, t.end);
  for (auto& s : t.transfers)
    s.bytes = r.varint();
}

// The columns queue samples and drops share: the time (its change from the row before) and the
// model.
template <class Row>
void write_model_times(VarintWriter& w, const std::vector<Row>& rows) {
  Delta time;
  for (const auto& q : rows)
    put_time(w, time, q.time);
  for (const auto& q : rows)
    w.varint(q.model);
}

template <class Row>
void read_model_times(VarintReader& r, std::vector<Row>& rows, std::size_t models) {
  TimeReader time(r);
  for (auto& q : rows)
    q.time = time.next();
  for (auto& q : rows)
    q.model = index_below(r, models, "model");
}

void write_queue(VarintWriter& w, const std::vector<QueueSample>& queue) {
  write_model_times(w, queue);
  for (const auto& q : queue)
    w.varint(q.depth);
}

void read_queue(VarintReader& r, std::uint64_t n, TimelineData& t) {
  t.queue.resize(n);
  read_model_times(r, t.queue, t.models.size());
  for (auto& q : t.queue)
    q.depth = static_cast<std::uint32_t>(r.varint_at_most(UINT32_MAX, "a queue depth"));
}

// Requests in the spans' order, each against the one before it in its batch: the first one's id
// against the batch's first_request (so 0) and its arrival against the batch's start (its wait).
// A deadline is its arrival plus a slack that is the same for every request of a model, so the
// slack's change from the row before is nearly always 0.
void write_requests(VarintWriter& w, const TimelineData& t) {
  if (t.requests.empty()) return;
  for (std::size_t i = 0; i < t.spans.size(); ++i) {
    auto last = t.spans[i].first_request;
    for (const auto& q : t.requests_of(i))
      w.signed_varint(static_cast<std::int64_t>(q.id - std::exchange(last, q.id)));
  }
  for (std::size_t i = 0; i < t.spans.size(); ++i) {
    auto last = t.spans[i].start;
    for (const auto& q : t.requests_of(i))
      w.signed_varint((q.arrival - std::exchange(last, q.arrival)).count_ns());
  }
  Delta slack;
  for (std::size_t i = 0; i < t.spans.size(); ++i)
    for (const auto& q : t.requests_of(i))
      w.signed_varint(slack.next((q.deadline - q.arrival).count_ns()));
}

// After the spans, whose sizes (checked against the count) place each request.
void read_requests(VarintReader& r, std::uint64_t n, TimelineData& t) {
  if (n == 0) return;
  t.requests.resize(n);
  std::uint64_t at = 0;
  for (auto& span : t.spans) {
    span.requests_at = at;
    at += span.size;
  }
  for (std::size_t i = 0; i < t.spans.size(); ++i) {
    auto last = t.spans[i].first_request;
    for (std::size_t k = 0; k < t.spans[i].size; ++k)
      t.requests[t.spans[i].requests_at + k].id = last += static_cast<std::uint64_t>(r.signed_varint());
  }
  for (std::size_t i = 0; i < t.spans.size(); ++i) {
    TimeReader arrival(r, t.spans[i].start);
    for (std::size_t k = 0; k < t.spans[i].size; ++k)
      t.requests[t.spans[i].requests_at + k].arrival = arrival.next();
  }
  std::int64_t slack = 0;
  for (auto& q : t.requests) {
    const auto change = r.signed_varint();
    if (__builtin_add_overflow(slack, change, &slack) || slack < -2 * kMaxTimeNs || slack > 2 * kMaxTimeNs ||
        std::abs(q.arrival.count_ns() + slack) > kMaxTimeNs)
      r.fail("a request's deadline lies beyond the run");
    q.deadline = q.arrival + Duration::nanoseconds(slack);
  }
}

void write_drops(VarintWriter& w, const std::vector<DropMark>& drops) {
  write_model_times(w, drops);
  for (const auto& d : drops)
    w.varint(static_cast<std::uint64_t>(d.reason));
  for (const auto& d : drops)
    w.varint(d.request ? 1 : 0);
  IdDelta id;
  for (const auto& d : drops)
    if (d.request) id.put(w, *d.request);
  // Version 2: a has-arrival flag each, then for the flagged ones the arrival against the drop's
  // time and the deadline against the arrival (both signed).
  for (const auto& d : drops)
    w.varint(d.arrival ? 1 : 0);
  for (const auto& d : drops)
    if (d.arrival) {
      w.signed_varint((*d.arrival - d.time).count_ns());
      w.signed_varint((d.deadline - *d.arrival).count_ns());
    }
}

void read_drops(VarintReader& r, std::uint64_t n, bool arrivals, TimelineData& t) {
  t.drops.resize(n);
  read_model_times(r, t.drops, t.models.size());
  for (auto& d : t.drops)
    d.reason = static_cast<DropReason>(r.varint_at_most(kDropReasonCount - 1, "a drop reason"));
  for (auto& d : t.drops)
    if (r.varint_at_most(1, "a drop's request flag") == 1) d.request = 0;
  IdDelta id;
  for (auto& d : t.drops)
    if (d.request) d.request = id.get(r);
  if (!arrivals) return;
  for (auto& d : t.drops)
    if (r.varint_at_most(1, "a drop's arrival flag") == 1) d.arrival = Time();
  TimeReader time(r);
  for (auto& d : t.drops)
    if (d.arrival) {
      d.arrival = time.offset(d.time);
      d.deadline = time.offset(*d.arrival);
    }
}

// What the tables' rows may take once built: the budget of the JSON text they came in. Every
// cell takes at least a byte unpacked, but a byte of zeros builds a row of tens of bytes, and
// zeros deflate to nothing: a 238 KB file once declared 22 million spans (1.75 GB). Each count is
// checked, with the tables before it, before its table is built.
class RowBudget {
 public:
  RowBudget(std::size_t text_bytes, const VarintReader& r)
      : text_bytes_(text_bytes), budget_(json_memory_budget(text_bytes)), r_(r) {}
  std::uint64_t take(std::uint64_t rows, std::size_t row_bytes, const char* what) {
    if (rows > (budget_ - used_) / row_bytes)
      r_.fail("the packed tables declare " + std::to_string(rows) + " " + what + ", which would take " +
              mib(static_cast<double>(used_) + static_cast<double>(rows) * static_cast<double>(row_bytes)) +
              " of memory with the tables before them; a timeline of " + mib(static_cast<double>(text_bytes_)) +
              " may take " + mib(static_cast<double>(budget_)));
    used_ += rows * row_bytes;
    return rows;
  }

 private:
  static std::string mib(double bytes) {
    return std::to_string(static_cast<std::uint64_t>(bytes / (1 << 20))) + " MiB";
  }
  std::size_t text_bytes_, budget_, used_ = 0;
  const VarintReader& r_;
};

// Cells per row: every cell takes at least a byte, which bounds each declared count.
constexpr std::uint64_t kSpanCells = 9, kWindowCells = 2, kTransferCells = 6, kQueueCells = 3, kRequestCells = 3,
                        kDropCells = 4;

// The batches' count heads the tables: checked before the rest is inflated, a bomb is refused
// at once, with the message the whole check would give (issue 43's took a second and 192 MiB to
// inflate, only to be refused). Anything the head cannot tell is left to the whole check.
void refuse_spans_early(const JsonCursor& data, std::uint64_t unpacked_bytes) {
  const auto head = unpack_head(data, 1 + 10);  // the windows flag and a count: at most 11 bytes
  VarintReader r(head, data, unpacked_bytes);
  if (!r.has_varint()) return;
  const auto windows = r.varint();
  if (windows > 1 || !r.has_varint()) return;
  const auto spans = r.varint();
  const auto cells = kSpanCells + (windows ? kWindowCells : 0);
  const auto read = head.size() - r.remaining();
  if (read > unpacked_bytes || spans > (unpacked_bytes - read) / cells) return;  // count() says why
  RowBudget(data.value().get_ref<const std::string&>().size(), r).take(spans, sizeof(TimelineSpan), "batches");
}

}  // namespace

nlohmann::json pack_timeline_rows(const TimelineData& t) {
  const bool windows =
      std::ranges::any_of(t.spans, [](const TimelineSpan& s) { return s.window_close > s.window_open; });
  VarintWriter w;
  w.varint(windows ? 1 : 0);
  w.varint(t.spans.size());
  write_spans(w, t.spans, windows);
  w.varint(t.transfers.size());
  write_transfers(w, t.transfers);
  w.varint(t.queue.size());
  write_queue(w, t.queue);
  w.varint(t.requests.size());
  write_requests(w, t);
  w.varint(t.drops.size());
  write_drops(w, t.drops);
  return {{"encoding", kEncoding}, {"bytes", w.bytes().size()}, {"data", pack_bytes(w.bytes())}};
}

void unpack_timeline_rows(const JsonCursor& packed, TimelineData& t) {
  packed.expect_object({"encoding", "bytes", "data"});
  const auto encoding = packed.at("encoding");
  const auto version = encoding.as_string();
  if (version != kEncoding && version != kEncodingV1)
    encoding.fail("expected \"" + std::string(kEncoding) + "\" (a newer ServeScope may have written this file)");
  const auto size =
      static_cast<std::uint64_t>(packed.at("bytes").as_int(0, static_cast<std::int64_t>(kMaxUnpackedTimelineBytes)));
  const auto data = packed.at("data");
  refuse_spans_early(data, size);
  const auto bytes = unpack_bytes(data, size, kMaxUnpackedTimelineBytes);
  VarintReader r(bytes, data);
  RowBudget budget(data.value().get_ref<const std::string&>().size(), r);
  const bool windows = r.varint_at_most(1, "the windows flag") == 1;
  const auto spans = r.count(kSpanCells + (windows ? kWindowCells : 0), "batches");
  read_spans(r, budget.take(spans, sizeof(TimelineSpan), "batches"), windows, t);
  read_transfers(r, budget.take(r.count(kTransferCells, "transfers"), sizeof(TransferSpan), "transfers"), t);
  read_queue(r, budget.take(r.count(kQueueCells, "queue samples"), sizeof(QueueSample), "queue samples"), t);
  const auto requests = r.count(kRequestCells, "requests");
  if (requests != 0 && requests != t.request_count())
    r.fail("the packed tables hold " + std::to_string(requests) + " requests; the batches carry " +
           std::to_string(t.request_count()));
  read_requests(r, budget.take(requests, sizeof(SpanRequest), "requests"), t);
  read_drops(r, budget.take(r.count(kDropCells - 1, "drops"), sizeof(DropMark), "drops"), version == kEncoding, t);
  if (r.remaining() != 0) r.fail(std::to_string(r.remaining()) + " bytes follow the packed tables");
}

}  // namespace servescope::engine
