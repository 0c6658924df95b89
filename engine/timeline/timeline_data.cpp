#include "engine/timeline/timeline_data.h"

#include <algorithm>
#include <optional>
#include <tuple>

#include "engine/serving/simulation_result.h"
#include "engine/timeline/timeline_packing.h"
#include "model/io/file_io.h"
#include "model/io/json_cursor.h"

namespace servescope::engine {
namespace {

const std::vector<std::string> kSpanColumns{"gpu",    "model",     "batch", "size",         "start_us",
                                            "end_us", "preempted", "late",  "first_request"};
const std::vector<std::string> kTransferColumns{"from_gpu", "to_gpu", "batch", "bytes", "start_us", "end_us"};
const std::vector<std::string> kQueueColumns{"time_us", "model", "depth"};
const std::vector<std::string> kRequestColumns{"request", "arrival_us", "deadline_us"};
const std::vector<std::string> kDropColumns{"time_us", "model", "reason", "request", "arrival_us", "deadline_us"};

// Times in a timeline may precede the run's origin (a warm-up), by as much as they may follow it.
constexpr double kMinTimeUs = -kMaxFileDurationUs;

// Cells of a row from RowReader::row; a column the file lacks (index -1) reads as zero.
double number(const JsonCursor& row, int column, double lo, double hi) {
  return column < 0 ? 0 : row.element(static_cast<std::size_t>(column)).as_double(lo, hi);
}
Time instant(const JsonCursor& row, int column) {
  return column < 0 ? Time() : row.element(static_cast<std::size_t>(column)).as_duration_us(kMinTimeUs);
}
bool flag(const JsonCursor& row, int column) {
  return column >= 0 && row.element(static_cast<std::size_t>(column)).as_bool();
}
// A [start, end) pair of µs columns, checked in order; `what` names the row in the message.
std::pair<Time, Time> interval(const JsonCursor& row, int start, int end, const char* what) {
  const auto from = instant(row, start), to = instant(row, end);
  if (to < from)
    row.element(static_cast<std::size_t>(end)).fail(std::string("a ") + what + " cannot end before it starts");
  return {from, to};
}

// Reads rows of arrays by column name.
class RowReader {
 public:
  RowReader(const JsonCursor& root, const char* columns_key, const char* rows_key,
            const std::vector<std::string>& required)
      : names_(column_names(root.at(columns_key), required)), rows_(root.at(rows_key)) {
    rows_.expect_array();
  }
  RowReader(const RowReader&) = delete;  // its rows refer to rows_
  RowReader& operator=(const RowReader&) = delete;
  const JsonCursor& rows() const { return rows_; }
  std::size_t size() const { return rows_.size(); }
  int index(const std::string& name) const {
    const auto it = std::ranges::find(names_, name);
    return it == names_.end() ? -1 : static_cast<int>(it - names_.begin());
  }
  // Row `i`, holding a value per column; it refers to this reader (JsonCursor::element).
  JsonCursor row(std::size_t i) const {
    auto r = rows_.element(i);
    if (r.size() != names_.size())
      r.fail("expected a row of " + std::to_string(names_.size()) + " values, got " + std::to_string(r.size()));
    return r;
  }

 private:
  static std::vector<std::string> column_names(const JsonCursor& columns, const std::vector<std::string>& required) {
    std::vector<std::string> names;
    for (std::size_t k = 0; k < columns.size(); ++k)
      names.push_back(columns.element(k).as_string(true));
    for (const auto& r : required)
      if (std::ranges::find(names, r) == names.end()) columns.fail("lacks the column \"" + r + "\"");
    return names;
  }
  std::vector<std::string> names_;
  JsonCursor rows_;
};

std::vector<std::string> strings(const JsonCursor& root, const char* key, bool required) {
  std::vector<std::string> out;
  const auto list = required ? std::optional(root.at(key)) : root.find(key);
  if (!list) return out;
  out.reserve(list->size());
  for (std::size_t i = 0; i < list->size(); ++i)
    out.push_back(list->element(i).as_string(true));
  return out;
}

// Optional lists that are not arrays have always been ignored rather than refused, so files
// that carry something else there still load.
std::optional<JsonCursor> optional_array(const JsonCursor& root, const char* key) {
  auto list = root.find(key);
  if (list && !list->value().is_array()) return std::nullopt;
  return list;
}

std::vector<Duration> durations(const JsonCursor& list) {
  std::vector<Duration> out;
  out.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i)
    out.push_back(list.element(i).as_duration_us());
  return out;
}

// Indexes into a list of `count` (GPUs, servers), one per slot.
std::vector<std::uint32_t> indexes(const JsonCursor& list, std::size_t count, const char* into) {
  std::vector<std::uint32_t> out;
  out.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto v = list.element(i);
    if (count == 0) v.fail(std::string("expected an index into ") + into + ", which is empty");
    out.push_back(static_cast<std::uint32_t>(v.as_int(0, static_cast<std::int64_t>(count) - 1)));
  }
  return out;
}

}  // namespace

std::uint64_t TimelineData::request_count() const {
  std::uint64_t n = 0;
  for (const auto& s : spans)
    n += s.size;
  return n;
}

std::span<const SpanRequest> TimelineData::requests_of(std::size_t i) const {
  const auto& s = spans[i];
  if (s.requests_at + s.size > requests.size()) return {};
  return std::span<const SpanRequest>(requests).subspan(s.requests_at, s.size);
}

TimelineData shifted(TimelineData t, Duration by) {
  for (auto& s : t.spans) {
    s.start += by;
    s.end += by;
    s.window_open += by;
    s.window_close += by;
  }
  for (auto& x : t.transfers) {
    x.start += by;
    x.end += by;
  }
  for (auto& q : t.queue)
    q.time += by;
  for (auto& r : t.requests) {
    r.arrival += by;
    r.deadline += by;
  }
  for (auto& d : t.drops) {
    d.time += by;
    if (d.arrival) *d.arrival += by;
    d.deadline += by;
  }
  for (auto& n : t.notices)
    n.time += by;
  t.end += by;
  return t;
}

TimelineData timeline_of(const SimulationResult& r) {
  TimelineData t;
  static_cast<RunLayout&>(t) = r;
  t.physical_names = r.physical_gpu_names();
  t.gpu_duty_cycle.resize(t.gpus.size());
  t.spans = r.timeline;
  t.transfers = r.transfers;
  std::ranges::stable_sort(t.transfers, {}, &TransferSpan::start);
  t.queue = r.queue_samples;
  t.requests = r.span_requests;
  t.drops = r.drops;
  t.notices = r.notices;
  for (const auto& s : t.spans)
    t.end = std::max(t.end, s.end);
  for (const auto& s : t.transfers)
    t.end = std::max(t.end, s.end);
  if (!t.queue.empty()) t.end = std::max(t.end, t.queue.back().time);
  if (!t.notices.empty()) t.end = std::max(t.end, t.notices.back().time);
  return t;
}

namespace {

// The slots and models the rows index, in either encoding.
nlohmann::json layout_json(const TimelineData& t) {
  nlohmann::json duty = nlohmann::json::array();
  for (const auto& d : t.gpu_duty_cycle)
    duty.push_back(d.to_us());
  nlohmann::json slo = nlohmann::json::array();
  for (const auto& d : t.model_slo)
    slo.push_back(d.to_us());
  return {{"schema_version", kSchemaVersion},
          {"kind", "timeline"},
          {"system", t.system},
          {"gpus", t.gpus},
          {"gpu_types", t.gpu_types},
          {"gpu_shares", t.gpu_shares},
          {"gpu_physical", t.gpu_physical},
          {"physical_gpus", t.physical_names},
          {"duty_cycle_us", std::move(duty)},
          {"gpu_server", t.gpu_server},
          {"servers", t.server_names},
          {"models", t.models},
          {"model_slo_us", std::move(slo)}};
}

}  // namespace

nlohmann::json to_json(const TimelineData& t, TimelineEncoding encoding) {
  auto json = layout_json(t);
  // A handful per run, each a line of text: objects in either encoding.
  if (!t.notices.empty()) {
    auto& notices = json["notices"] = nlohmann::json::array();
    for (const auto& n : t.notices)
      notices.push_back({{"time_us", n.time.to_us()}, {"kind", to_string(n.kind)}, {"text", n.text}, {"gpus", n.gpus}});
  }
  if (encoding == TimelineEncoding::Packed) {
    json["packed"] = pack_timeline_rows(t);
    return json;
  }
  // Schedulable windows are written only by data planes that have them (Symphony's family).
  const bool windows =
      std::ranges::any_of(t.spans, [](const TimelineSpan& s) { return s.window_close > s.window_open; });
  auto columns = kSpanColumns;
  if (windows) columns.insert(columns.end(), {"window_open_us", "window_close_us"});
  nlohmann::json spans = nlohmann::json::array();
  for (const auto& s : t.spans) {
    nlohmann::json row = {s.gpu,         s.model,     s.batch, s.size,         s.start.to_us(),
                          s.end.to_us(), s.preempted, s.late,  s.first_request};
    if (windows) {
      row.push_back(s.window_open.to_us());
      row.push_back(s.window_close.to_us());
    }
    spans.push_back(std::move(row));
  }
  nlohmann::json drops = nlohmann::json::array();
  for (const auto& d : t.drops)
    drops.push_back({d.time.to_us(), d.model, std::string(to_string(d.reason)),
                     d.request ? nlohmann::json(*d.request) : nlohmann::json(nullptr),
                     d.arrival ? nlohmann::json(d.arrival->to_us()) : nlohmann::json(nullptr),
                     d.arrival ? nlohmann::json(d.deadline.to_us()) : nlohmann::json(nullptr)});
  // Requests follow the spans' order, so a reader finds each span's at the running offset.
  nlohmann::json requests = nlohmann::json::array();
  if (!t.requests.empty())
    for (std::size_t i = 0; i < t.spans.size(); ++i)
      for (const auto& r : t.requests_of(i))
        requests.push_back({r.id, r.arrival.to_us(), r.deadline.to_us()});
  nlohmann::json transfers = nlohmann::json::array();
  for (const auto& s : t.transfers)
    transfers.push_back({s.from_gpu, s.to_gpu, s.batch, s.bytes, s.start.to_us(), s.end.to_us()});
  nlohmann::json queue = nlohmann::json::array();
  for (const auto& q : t.queue)
    queue.push_back({q.time.to_us(), q.model, q.depth});
  json["columns"] = std::move(columns);
  json["spans"] = std::move(spans);
  json["transfer_columns"] = kTransferColumns;
  json["transfers"] = std::move(transfers);
  json["queue_columns"] = kQueueColumns;
  json["queue"] = std::move(queue);
  json["request_columns"] = kRequestColumns;
  json["requests"] = std::move(requests);
  json["drop_columns"] = kDropColumns;
  json["drops"] = std::move(drops);
  return json;
}

namespace {

// The layout: slots with their types, shares, physical GPUs and servers; models with their SLOs.
void read_layout(const JsonCursor& root, TimelineData& t) {
  t.system = root.string_or("system", "");
  t.gpus = strings(root, "gpus", true);
  t.models = strings(root, "models", true);
  t.gpu_types = strings(root, "gpu_types", false);
  t.gpu_shares = strings(root, "gpu_shares", false);
  t.physical_names = strings(root, "physical_gpus", false);
  t.gpu_types.resize(t.gpus.size());
  t.gpu_shares.resize(t.gpus.size(), "1");
  // Without a physical mapping (or one that does not fit the slots) every slot is its own GPU.
  if (const auto p = optional_array(root, "gpu_physical"); p && p->size() == t.gpus.size()) {
    t.gpu_physical = indexes(*p, t.gpus.size(), "\"gpus\"");
  } else {
    for (std::uint32_t g = 0; g < t.gpus.size(); ++g)
      t.gpu_physical.push_back(g);
  }
  for (auto p = t.physical_names.size(); p < t.physical_gpu_count(); ++p)
    t.physical_names.push_back("gpu " + std::to_string(p));
  if (const auto s = optional_array(root, "model_slo_us")) t.model_slo = durations(*s);
  t.model_slo.resize(t.models.size());
  t.server_names = strings(root, "servers", false);
  if (const auto sv = optional_array(root, "gpu_server"); sv && sv->size() == t.gpus.size())
    t.gpu_server = indexes(*sv, t.server_names.size(), "\"servers\"");
  if (const auto d = optional_array(root, "duty_cycle_us")) t.gpu_duty_cycle = durations(*d);
  t.gpu_duty_cycle.resize(t.gpus.size());
}

double last_gpu(const TimelineData& t) {
  return static_cast<double>(t.gpus.size()) - 1;
}
double last_model(const TimelineData& t) {
  return static_cast<double>(t.models.size()) - 1;
}

void read_spans(const JsonCursor& root, TimelineData& t) {
  const RowReader rows(root, "columns", "spans", {"gpu", "model", "start_us", "end_us"});
  const int gpu = rows.index("gpu"), model = rows.index("model"), batch = rows.index("batch"),
            size = rows.index("size"), start = rows.index("start_us"), end = rows.index("end_us"),
            preempted = rows.index("preempted"), late = rows.index("late"), first = rows.index("first_request"),
            open = rows.index("window_open_us"), close = rows.index("window_close_us");
  t.spans.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto r = rows.row(i);
    TimelineSpan s;
    s.gpu = static_cast<std::uint32_t>(number(r, gpu, 0, last_gpu(t)));
    s.model = static_cast<std::uint32_t>(number(r, model, 0, last_model(t)));
    s.batch = static_cast<BatchId>(number(r, batch, 0, 1.8e19));
    s.size = static_cast<std::uint32_t>(number(r, size, 0, 1e9));
    std::tie(s.start, s.end) = interval(r, start, end, "batch");
    s.preempted = flag(r, preempted);
    s.late = static_cast<std::uint32_t>(number(r, late, 0, s.size));
    s.first_request = static_cast<RequestId>(number(r, first, 0, 1.8e19));
    if (open >= 0 && close >= 0) std::tie(s.window_open, s.window_close) = interval(r, open, close, "window");
    t.end = std::max(t.end, s.end);
    t.spans.push_back(s);
  }
}

void read_transfers(const JsonCursor& root, TimelineData& t) {
  if (!root.find("transfers")) return;
  const RowReader rows(root, "transfer_columns", "transfers", {"from_gpu", "to_gpu", "start_us", "end_us"});
  const int from = rows.index("from_gpu"), to = rows.index("to_gpu"), batch = rows.index("batch"),
            bytes = rows.index("bytes"), start = rows.index("start_us"), end = rows.index("end_us");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto r = rows.row(i);
    TransferSpan s;
    s.from_gpu = static_cast<std::uint32_t>(number(r, from, 0, last_gpu(t)));
    s.to_gpu = static_cast<std::uint32_t>(number(r, to, 0, last_gpu(t)));
    s.batch = static_cast<BatchId>(number(r, batch, 0, 1.8e19));
    s.bytes = static_cast<std::uint64_t>(number(r, bytes, 0, 1.8e19));
    std::tie(s.start, s.end) = interval(r, start, end, "transfer");
    t.end = std::max(t.end, s.end);
    t.transfers.push_back(s);
  }
}

void read_queue(const JsonCursor& root, TimelineData& t) {
  if (!root.find("queue")) return;
  const RowReader rows(root, "queue_columns", "queue", {"time_us", "model", "depth"});
  const int time_us = rows.index("time_us"), model = rows.index("model"), depth = rows.index("depth");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto r = rows.row(i);
    t.queue.push_back({instant(r, time_us), static_cast<std::uint32_t>(number(r, model, 0, last_model(t))),
                       static_cast<std::uint32_t>(number(r, depth, 0, 4e9))});
  }
}

// Every span's requests, in the spans' file order. An empty list (or null) stands for none,
// whatever its columns say.
void read_requests(const JsonCursor& root, TimelineData& t) {
  const auto r = root.find("requests");
  if (!r || r->value().empty()) return;
  const RowReader rows(root, "request_columns", "requests", {"request", "arrival_us", "deadline_us"});
  const int id = rows.index("request"), arrival = rows.index("arrival_us"), deadline = rows.index("deadline_us");
  if (rows.size() != t.request_count())
    rows.rows().fail("holds " + std::to_string(rows.size()) + " requests; the spans carry " +
                     std::to_string(t.request_count()));
  t.requests.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto row = rows.row(i);
    t.requests.push_back(
        {static_cast<RequestId>(number(row, id, 0, 1.8e19)), instant(row, arrival), instant(row, deadline)});
  }
  std::uint64_t at = 0;  // in file order, before any re-sorting
  for (auto& span : t.spans) {
    span.requests_at = at;
    at += span.size;
  }
}

void read_drops(const JsonCursor& root, TimelineData& t) {
  const auto d = root.find("drops");
  if (!d || d->value().empty()) return;
  const RowReader rows(root, "drop_columns", "drops", {"time_us", "model", "reason"});
  const int time_us = rows.index("time_us"), model = rows.index("model"), reason = rows.index("reason"),
            request = rows.index("request"), arrival = rows.index("arrival_us"), deadline = rows.index("deadline_us");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto row = rows.row(i);
    // Which request: a column files gained later; null (or no column) where it is not known.
    std::optional<RequestId> id;
    if (request >= 0 && !row.element(static_cast<std::size_t>(request)).value().is_null())
      id = static_cast<RequestId>(number(row, request, 0, 1.8e19));
    const auto text = row.element(static_cast<std::size_t>(reason));
    const auto why =
        text.value().is_string() ? parse_drop_reason(text.value().get_ref<const std::string&>()) : std::nullopt;
    if (!why)
      text.fail("expected a drop reason (deadline-unreachable, window-drop, …), got " + describe_json(text.value()));
    DropMark mark{instant(row, time_us),
                  static_cast<std::uint32_t>(number(row, model, 0, last_model(t))),
                  *why,
                  id,
                  std::nullopt,
                  Time()};
    // Its arrival and deadline: columns files gained later still; null where not known.
    if (arrival >= 0 && deadline >= 0 && !row.element(static_cast<std::size_t>(arrival)).value().is_null()) {
      mark.arrival = instant(row, arrival);
      mark.deadline = instant(row, deadline);
    }
    t.drops.push_back(mark);
  }
}

void read_notices(const JsonCursor& root, TimelineData& t) {
  const auto list = root.find("notices");
  if (!list) return;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto n = list->element(i);
    n.expect_object({"time_us", "kind", "text", "gpus"});
    RunNotice notice;
    notice.time = n.at("time_us").as_duration_us(kMinTimeUs);
    const auto kind = n.at("kind");
    const auto parsed = parse_notice_kind(kind.as_string());
    if (!parsed)
      kind.fail("expected a notice kind (worker-lost, worker-late, plan-switched, …), got " +
                describe_json(kind.value()));
    notice.kind = *parsed;
    const auto text = n.at("text");
    notice.text = text.as_string(true);
    if (notice.text.size() > kMaxNoticeTextBytes)
      text.fail("a notice's text passes " + std::to_string(kMaxNoticeTextBytes) + " bytes");
    if (const auto gpus = n.find("gpus")) notice.gpus = indexes(*gpus, t.gpus.size(), "the timeline's GPUs");
    t.notices.push_back(std::move(notice));
  }
}

}  // namespace

TimelineData timeline_from_json(const JsonCursor& root) {
  if (const auto kind = root.at("kind"); kind.value() != "timeline")
    kind.fail("expected \"timeline\" (written by simulate --timeline), got " + describe_json(kind.value()));
  TimelineData t;
  read_layout(root, t);
  if (const auto packed = root.find("packed")) {
    if (root.find("spans")) packed->fail("a timeline holds its rows packed or as \"spans\", not both");
    unpack_timeline_rows(*packed, t);
  } else {
    read_spans(root, t);
    read_transfers(root, t);
    read_queue(root, t);
    read_requests(root, t);
    read_drops(root, t);
  }
  read_notices(root, t);
  // Files written by others need not be sorted; the views rely on it.
  const auto by_start = [](const TimelineSpan& a, const TimelineSpan& b) {
    return a.start < b.start || (a.start == b.start && a.gpu < b.gpu);
  };
  if (!std::ranges::is_sorted(t.spans, by_start)) std::ranges::stable_sort(t.spans, by_start);
  std::ranges::stable_sort(t.transfers, {}, &TransferSpan::start);
  std::ranges::stable_sort(t.queue, {}, &QueueSample::time);
  std::ranges::stable_sort(t.drops, {}, &DropMark::time);
  std::ranges::stable_sort(t.notices, {}, &RunNotice::time);
  if (!t.notices.empty()) t.end = std::max(t.end, t.notices.back().time);
  return t;
}

TimelineData timeline_from_json(const nlohmann::json& json, const std::string& file) {
  return timeline_from_json(JsonCursor(json, file));
}

TimelineData load_timeline(const std::string& path) {
  const auto json = parse_json_text(read_text_file(path), path);
  const JsonCursor root(json, path);
  // A run file may embed its timeline; anything else is read as a timeline, and fails on its kind.
  if (json.is_object() && json.contains("timeline")) {
    const auto kind = root.find("kind");
    if (!kind || kind->value() != "timeline") return timeline_from_json(root.at("timeline"));
  }
  return timeline_from_json(root);
}

}  // namespace servescope::engine
