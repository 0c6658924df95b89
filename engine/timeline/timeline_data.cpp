#include "engine/timeline/timeline_data.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>

#include "engine/sim/scenario_simulation.h"
#include "model/core/error.h"
#include "model/io/file_io.h"
#include "model/io/json_cursor.h"

namespace servescope::engine {
namespace {

const std::vector<std::string> kSpanColumns{"gpu",    "model",     "batch", "size",         "start_us",
                                            "end_us", "preempted", "late",  "first_request"};
const std::vector<std::string> kTransferColumns{"from_gpu", "to_gpu", "batch", "bytes", "start_us", "end_us"};
const std::vector<std::string> kQueueColumns{"time_us", "model", "depth"};
const std::vector<std::string> kRequestColumns{"request", "arrival_us", "deadline_us"};
const std::vector<std::string> kDropColumns{"time_us", "model", "reason"};

constexpr double kMaxUs = 1e13;  // times beyond ~116 days are not a run's

Time at_us(double us) {
  return Duration::nanoseconds(static_cast<std::int64_t>(std::llround(us * 1000.0)));
}

// Reads rows of arrays by column name; fails with the JSON path of the bad value.
class RowReader {
 public:
  RowReader(const nlohmann::json& root, const std::string& file, const char* columns_key, const char* rows_key,
            const std::vector<std::string>& required)
      : file_(file), rows_key_(rows_key) {
    const auto c = root.find(columns_key);
    if (c == root.end() || !c->is_array()) fail(std::string("$.") + columns_key, "expected an array of column names");
    for (const auto& name : *c) {
      if (!name.is_string()) fail(std::string("$.") + columns_key, "column names are strings");
      names_.push_back(name.get<std::string>());
    }
    for (const auto& r : required)
      if (index(r) < 0) fail(std::string("$.") + columns_key, "lacks the column \"" + r + "\"");
    const auto rows = root.find(rows_key);
    if (rows == root.end() || !rows->is_array()) fail(std::string("$.") + rows_key, "expected an array of rows");
    rows_ = &*rows;
  }
  std::size_t size() const { return rows_->size(); }
  int index(const std::string& name) const {
    const auto it = std::ranges::find(names_, name);
    return it == names_.end() ? -1 : static_cast<int>(it - names_.begin());
  }
  const nlohmann::json& row(std::size_t i) const {
    const auto& r = (*rows_)[i];
    if (!r.is_array() || r.size() != names_.size())
      fail(path(i), "expected a row of " + std::to_string(names_.size()) + " values");
    return r;
  }
  double number(const nlohmann::json& r, std::size_t i, int column, double lo, double hi) const {
    if (column < 0) return 0;
    const auto& v = r[static_cast<std::size_t>(column)];
    if (!v.is_number()) fail(path(i, column), "expected a number");
    const double x = v.get<double>();
    if (!(x >= lo && x <= hi)) fail(path(i, column), "expected a number from " + num(lo) + " to " + num(hi));
    return x;
  }
  // A [start, end) pair of µs columns, checked in order; `what` names the row in the message.
  std::pair<Time, Time> interval(const nlohmann::json& r, std::size_t i, int start, int end, const char* what) const {
    const auto from = at_us(number(r, i, start, -kMaxUs, kMaxUs)), to = at_us(number(r, i, end, -kMaxUs, kMaxUs));
    if (to < from) fail(path(i, end), std::string("a ") + what + " cannot end before it starts");
    return {from, to};
  }
  bool flag(const nlohmann::json& r, std::size_t i, int column) const {
    if (column < 0) return false;
    const auto& v = r[static_cast<std::size_t>(column)];
    if (!v.is_boolean()) fail(path(i, column), "expected true or false");
    return v.get<bool>();
  }
  [[noreturn]] void fail(const std::string& where, const std::string& why) const {
    throw InputError(file_, where, why);
  }
  std::string path(std::size_t i, int column = -1) const {
    return "$." + rows_key_ + "[" + std::to_string(i) + "]" + (column >= 0 ? "[" + std::to_string(column) + "]" : "");
  }

 private:
  static std::string num(double x) {
    std::ostringstream o;
    o << x;
    return o.str();
  }
  std::string file_;
  std::string rows_key_;
  std::vector<std::string> names_;
  const nlohmann::json* rows_ = nullptr;
};

std::vector<std::string> strings(const nlohmann::json& root, const std::string& file, const char* key, bool required) {
  std::vector<std::string> out;
  const auto it = root.find(key);
  if (it == root.end()) {
    if (required) throw InputError(file, std::string("$.") + key, "missing");
    return out;
  }
  if (!it->is_array()) throw InputError(file, std::string("$.") + key, "expected an array of names");
  for (std::size_t i = 0; i < it->size(); ++i) {
    if (!(*it)[i].is_string())
      throw InputError(file, std::string("$.") + key + "[" + std::to_string(i) + "]", "expected a string");
    out.push_back((*it)[i].get<std::string>());
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

TimelineData timeline_of(const SimulationResult& r) {
  TimelineData t;
  t.system = r.system;
  t.gpus = r.gpus;
  t.gpu_types = r.gpu_types;
  t.gpu_shares = r.gpu_shares;
  t.gpu_physical = r.gpu_physical;
  std::uint32_t physical = 0;
  for (const auto p : r.gpu_physical)
    physical = std::max(physical, p + 1);
  // A physical GPU is named after its first slot, less the slot's own suffix ("/v0", "@50%").
  t.physical_names.resize(physical);
  for (std::size_t g = 0; g < r.gpus.size() && g < r.gpu_physical.size(); ++g) {
    auto& name = t.physical_names[r.gpu_physical[g]];
    if (!name.empty()) continue;
    name = r.gpus[g];
    if (const auto cut = name.find_first_of("@#"); cut != std::string::npos) name.resize(cut);
    if (const auto v = name.rfind("/v"); v != std::string::npos && v > name.rfind("/gpu")) name.resize(v);
  }
  t.gpu_server = r.gpu_server;
  t.server_names = r.server_names;
  t.duty_cycles = r.gpu_duty_cycle;
  t.duty_cycles.resize(t.gpus.size());
  t.models = r.models;
  t.model_slo = r.model_slo;
  t.spans = r.timeline;
  t.transfers = r.transfers;
  std::ranges::stable_sort(t.transfers, {}, &TransferSpan::start);
  t.queue = r.queue_samples;
  t.requests = r.span_requests;
  t.drops = r.drops;
  for (const auto& s : t.spans)
    t.end = std::max(t.end, s.end);
  for (const auto& s : t.transfers)
    t.end = std::max(t.end, s.end);
  if (!t.queue.empty()) t.end = std::max(t.end, t.queue.back().time);
  return t;
}

nlohmann::json to_json(const TimelineData& t) {
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
  nlohmann::json duty = nlohmann::json::array();
  for (const auto& d : t.duty_cycles)
    duty.push_back(d.to_us());
  nlohmann::json drops = nlohmann::json::array();
  for (const auto& d : t.drops)
    drops.push_back({d.time.to_us(), d.model, std::string(to_string(d.reason))});
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
          {"model_slo_us", std::move(slo)},
          {"columns", std::move(columns)},
          {"spans", std::move(spans)},
          {"transfer_columns", kTransferColumns},
          {"transfers", std::move(transfers)},
          {"queue_columns", kQueueColumns},
          {"queue", std::move(queue)},
          {"request_columns", kRequestColumns},
          {"requests", std::move(requests)},
          {"drop_columns", kDropColumns},
          {"drops", std::move(drops)}};
}

TimelineData timeline_from_json(const nlohmann::json& root, const std::string& file) {
  if (!root.is_object()) throw InputError(file, "$", "expected a timeline object");
  if (root.value("kind", "") != "timeline")
    throw InputError(file, "$.kind", "expected \"timeline\" (written by simulate --timeline)");
  TimelineData t;
  t.system = root.value("system", "");
  t.gpus = strings(root, file, "gpus", true);
  t.models = strings(root, file, "models", true);
  t.gpu_types = strings(root, file, "gpu_types", false);
  t.gpu_shares = strings(root, file, "gpu_shares", false);
  t.physical_names = strings(root, file, "physical_gpus", false);
  t.gpu_types.resize(t.gpus.size());
  t.gpu_shares.resize(t.gpus.size(), "1");
  // Without a physical mapping every slot is its own GPU.
  if (const auto p = root.find("gpu_physical"); p != root.end() && p->is_array() && p->size() == t.gpus.size()) {
    for (std::size_t g = 0; g < p->size(); ++g) {
      const auto& v = (*p)[g];
      if (!v.is_number_unsigned() || v.get<std::uint64_t>() >= t.gpus.size())
        throw InputError(file, "$.gpu_physical[" + std::to_string(g) + "]",
                         "expected a physical GPU index below " + std::to_string(t.gpus.size()));
      t.gpu_physical.push_back(v.get<std::uint32_t>());
    }
  } else {
    for (std::uint32_t g = 0; g < t.gpus.size(); ++g)
      t.gpu_physical.push_back(g);
  }
  std::uint32_t physical = 0;
  for (const auto p : t.gpu_physical)
    physical = std::max(physical, p + 1);
  if (t.physical_names.size() < physical)
    for (std::uint32_t p = static_cast<std::uint32_t>(t.physical_names.size()); p < physical; ++p)
      t.physical_names.push_back("gpu " + std::to_string(p));
  if (const auto s = root.find("model_slo_us"); s != root.end() && s->is_array())
    for (std::size_t m = 0; m < s->size(); ++m) {
      if (!(*s)[m].is_number() || !((*s)[m].get<double>() >= 0 && (*s)[m].get<double>() <= kMaxUs))
        throw InputError(file, "$.model_slo_us[" + std::to_string(m) + "]", "expected a latency in µs");
      t.model_slo.push_back(at_us((*s)[m].get<double>()));
    }
  t.model_slo.resize(t.models.size());
  t.server_names = strings(root, file, "servers", false);
  if (const auto sv = root.find("gpu_server"); sv != root.end() && sv->is_array() && sv->size() == t.gpus.size())
    for (std::size_t g = 0; g < sv->size(); ++g) {
      const auto& v = (*sv)[g];
      if (!v.is_number_unsigned() || v.get<std::uint64_t>() >= t.server_names.size())
        throw InputError(file, "$.gpu_server[" + std::to_string(g) + "]", "expected an index into $.servers");
      t.gpu_server.push_back(v.get<std::uint32_t>());
    }
  if (const auto d = root.find("duty_cycle_us"); d != root.end() && d->is_array())
    for (std::size_t g = 0; g < d->size(); ++g) {
      if (!(*d)[g].is_number() || !((*d)[g].get<double>() >= 0 && (*d)[g].get<double>() <= kMaxUs))
        throw InputError(file, "$.duty_cycle_us[" + std::to_string(g) + "]", "expected a duration in µs");
      t.duty_cycles.push_back(at_us((*d)[g].get<double>()));
    }
  t.duty_cycles.resize(t.gpus.size());

  const double max_gpu = static_cast<double>(t.gpus.size()) - 1;
  const double max_model = static_cast<double>(t.models.size()) - 1;
  {
    const RowReader rows(root, file, "columns", "spans", {"gpu", "model", "start_us", "end_us"});
    const int gpu = rows.index("gpu"), model = rows.index("model"), batch = rows.index("batch"),
              size = rows.index("size"), start = rows.index("start_us"), end = rows.index("end_us"),
              preempted = rows.index("preempted"), late = rows.index("late"), first = rows.index("first_request"),
              open = rows.index("window_open_us"), close = rows.index("window_close_us");
    t.spans.reserve(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows.row(i);
      TimelineSpan s;
      s.gpu = static_cast<std::uint32_t>(rows.number(r, i, gpu, 0, max_gpu));
      s.model = static_cast<std::uint32_t>(rows.number(r, i, model, 0, max_model));
      s.batch = static_cast<BatchId>(rows.number(r, i, batch, 0, 1.8e19));
      s.size = static_cast<std::uint32_t>(rows.number(r, i, size, 0, 1e9));
      std::tie(s.start, s.end) = rows.interval(r, i, start, end, "batch");
      s.preempted = rows.flag(r, i, preempted);
      s.late = static_cast<std::uint32_t>(rows.number(r, i, late, 0, s.size));
      s.first_request = static_cast<RequestId>(rows.number(r, i, first, 0, 1.8e19));
      if (open >= 0 && close >= 0) std::tie(s.window_open, s.window_close) = rows.interval(r, i, open, close, "window");
      t.end = std::max(t.end, s.end);
      t.spans.push_back(s);
    }
  }
  if (root.contains("transfers")) {
    const RowReader rows(root, file, "transfer_columns", "transfers", {"from_gpu", "to_gpu", "start_us", "end_us"});
    const int from = rows.index("from_gpu"), to = rows.index("to_gpu"), batch = rows.index("batch"),
              bytes = rows.index("bytes"), start = rows.index("start_us"), end = rows.index("end_us");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows.row(i);
      TransferSpan s;
      s.from_gpu = static_cast<std::uint32_t>(rows.number(r, i, from, 0, max_gpu));
      s.to_gpu = static_cast<std::uint32_t>(rows.number(r, i, to, 0, max_gpu));
      s.batch = static_cast<BatchId>(rows.number(r, i, batch, 0, 1.8e19));
      s.bytes = static_cast<std::uint64_t>(rows.number(r, i, bytes, 0, 1.8e19));
      std::tie(s.start, s.end) = rows.interval(r, i, start, end, "transfer");
      t.end = std::max(t.end, s.end);
      t.transfers.push_back(s);
    }
  }
  if (root.contains("queue")) {
    const RowReader rows(root, file, "queue_columns", "queue", {"time_us", "model", "depth"});
    const int time = rows.index("time_us"), model = rows.index("model"), depth = rows.index("depth");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows.row(i);
      t.queue.push_back({at_us(rows.number(r, i, time, -kMaxUs, kMaxUs)),
                         static_cast<std::uint32_t>(rows.number(r, i, model, 0, max_model)),
                         static_cast<std::uint32_t>(rows.number(r, i, depth, 0, 4e9))});
    }
  }
  if (const auto r = root.find("requests"); r != root.end() && !r->empty()) {
    const RowReader rows(root, file, "request_columns", "requests", {"request", "arrival_us", "deadline_us"});
    const int id = rows.index("request"), arrival = rows.index("arrival_us"), deadline = rows.index("deadline_us");
    if (rows.size() != t.request_count())
      throw InputError(
          file, "$.requests",
          "holds " + std::to_string(rows.size()) + " requests; the spans carry " + std::to_string(t.request_count()));
    t.requests.reserve(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& row = rows.row(i);
      t.requests.push_back({static_cast<RequestId>(rows.number(row, i, id, 0, 1.8e19)),
                            at_us(rows.number(row, i, arrival, -kMaxUs, kMaxUs)),
                            at_us(rows.number(row, i, deadline, -kMaxUs, kMaxUs))});
    }
    std::uint64_t at = 0;  // in file order, before any re-sorting below
    for (auto& span : t.spans) {
      span.requests_at = at;
      at += span.size;
    }
  }
  if (const auto d = root.find("drops"); d != root.end() && !d->empty()) {
    const RowReader rows(root, file, "drop_columns", "drops", {"time_us", "model", "reason"});
    const int time = rows.index("time_us"), model = rows.index("model"), reason = rows.index("reason");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& row = rows.row(i);
      const auto& text = row[static_cast<std::size_t>(reason)];
      const auto why = text.is_string() ? parse_drop_reason(text.get<std::string>()) : std::nullopt;
      if (!why) rows.fail(rows.path(i, reason), "expected a drop reason (deadline-unreachable, window-drop, …)");
      t.drops.push_back({at_us(rows.number(row, i, time, -kMaxUs, kMaxUs)),
                         static_cast<std::uint32_t>(rows.number(row, i, model, 0, max_model)), *why});
    }
  }
  // Files written by others need not be sorted; the views rely on it.
  const auto by_start = [](const TimelineSpan& a, const TimelineSpan& b) {
    return a.start < b.start || (a.start == b.start && a.gpu < b.gpu);
  };
  if (!std::ranges::is_sorted(t.spans, by_start)) std::ranges::stable_sort(t.spans, by_start);
  std::ranges::stable_sort(t.transfers, {}, &TransferSpan::start);
  std::ranges::stable_sort(t.queue, {}, &QueueSample::time);
  std::ranges::stable_sort(t.drops, {}, &DropMark::time);
  return t;
}

TimelineData load_timeline(const std::string& path) {
  const auto text = read_text_file(path);
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path, "byte " + std::to_string(e.byte), "not JSON: " + std::string(e.what()));
  }
  if (root.is_object() && root.value("kind", "") != "timeline" && root.contains("timeline"))
    return timeline_from_json(root["timeline"], path);
  return timeline_from_json(root, path);
}

}  // namespace servescope::engine
