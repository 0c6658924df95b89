#include "engine/analysis/prediction_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "engine/timeline/timeline_data.h"
#include "model/core/text.h"
#include "model/io/json_cursor.h"

namespace servescope::engine {
namespace {

struct ModelCounts {
  std::uint64_t arrivals = 0, on_time = 0, late = 0;
  double p99_ms = 0;
  std::map<std::string, std::uint64_t> drops;  // by reason
};

struct RunFigures {
  std::vector<std::string> order;  // models as the run lists them
  std::map<std::string, ModelCounts> models;
  ModelCounts total;
  // 1 / the seconds of load after the warm-up: a live run's own window runs on to its last event,
  // long after the load, so its goodput_rps is not comparable with a simulation's.
  double goodput_per_on_time = 0;
  std::optional<TimelineData> timeline;
  std::string timeline_error;
};

ModelCounts counts_of(const JsonCursor& m) {
  ModelCounts c;
  constexpr std::int64_t kMax = std::int64_t{1} << 50;
  c.arrivals = static_cast<std::uint64_t>(m.int_or("arrivals", 0, 0, kMax));
  c.on_time = static_cast<std::uint64_t>(m.int_or("on_time", 0, 0, kMax));
  c.late = static_cast<std::uint64_t>(m.int_or("late", 0, 0, kMax));
  if (const auto latency = m.find("latency_ms")) c.p99_ms = latency->double_or("p99", 0, 0, 1e12);
  if (const auto drops = m.find("drops_by_reason")) {
    drops->expect_object();
    for (const auto& [reason, n] : drops->value().items())
      c.drops[reason] = static_cast<std::uint64_t>(drops->at(reason).as_int(0, kMax));
  }
  return c;
}

RunFigures figures_of(const nlohmann::json& body, const std::string& name) {
  const JsonCursor run(body, name);
  RunFigures f;
  const auto summary = run.at("summary");
  f.total = counts_of(summary);
  if (const auto load = load_window(run)) {
    const double warmup_s = run.at("config").double_or("warmup_s", 0, 0, 1e7);
    const double measured_s = load->to_s - std::max(load->from_s, warmup_s);
    f.goodput_per_on_time = measured_s > 0 ? 1 / measured_s : 0;
  }
  const auto models = run.at("models");
  for (std::size_t i = 0; i < models.size(); ++i) {
    const auto m = models[i];
    const auto model = m.at("name").as_string();
    f.order.push_back(model);
    f.models[model] = counts_of(m);
  }
  if (const auto timeline = run.find("timeline")) {
    try {
      f.timeline = timeline_from_json(*timeline);
    } catch (const std::exception& e) {
      f.timeline_error = e.what();
    }
  } else {
    f.timeline_error = "the run keeps no timeline";
  }
  return f;
}

double attainment(const ModelCounts& c) {
  return c.arrivals ? static_cast<double>(c.on_time) / static_cast<double>(c.arrivals) : 0;
}

double share_pct(std::uint64_t n, std::uint64_t of) {
  return of ? 100.0 * static_cast<double>(n) / static_cast<double>(of) : 0;
}

// Per model, the median duration of its batches of each size.
std::map<std::string, std::map<std::uint32_t, std::pair<double, std::size_t>>> batch_medians(const TimelineData& t) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<double>> by;
  for (const auto& s : t.spans)
    if (!s.preempted && s.end > s.start && s.model < t.models.size())
      by[{s.model, s.size}].push_back(static_cast<double>((s.end - s.start).count_ns()));
  std::map<std::string, std::map<std::uint32_t, std::pair<double, std::size_t>>> out;
  for (auto& [key, times] : by) {
    const auto mid = times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2);
    std::nth_element(times.begin(), mid, times.end());
    out[t.models[key.first]][key.second] = {*mid, times.size()};
  }
  return out;
}

// Of the time slots of a shared device ran batches, the fraction another slot of it ran one too;
// nullopt when no device has two slots that ran.
std::optional<double> beside_fraction(const TimelineData& t) {
  std::map<std::uint32_t, std::vector<std::pair<std::int64_t, int>>> events;  // per physical GPU
  std::map<std::uint32_t, std::vector<std::uint32_t>> slots;
  for (std::uint32_t g = 0; g < t.gpu_physical.size(); ++g)
    slots[t.gpu_physical[g]].push_back(g);
  for (const auto& s : t.spans) {
    if (s.end <= s.start || s.gpu >= t.gpu_physical.size()) continue;
    const auto device = t.gpu_physical[s.gpu];
    if (slots[device].size() < 2) continue;
    events[device].push_back({s.start.count_ns(), +1});
    events[device].push_back({s.end.count_ns(), -1});
  }
  double busy = 0, beside = 0;
  for (auto& [device, list] : events) {
    std::sort(list.begin(), list.end());
    int running = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
      running += list[i].second;
      if (i + 1 == list.size()) break;
      const auto dt = static_cast<double>(list[i + 1].first - list[i].first);
      busy += running * dt;
      if (running >= 2) beside += running * dt;
    }
  }
  if (busy <= 0) return std::nullopt;
  return beside / busy;
}

SideBySide side_by_side(const std::string& model, const ModelCounts& live, const ModelCounts& predicted,
                        const RunFigures& l, const RunFigures& p) {
  SideBySide row;
  row.model = model;
  row.live_arrivals = live.arrivals;
  row.predicted_arrivals = predicted.arrivals;
  row.live_attainment = attainment(live);
  row.predicted_attainment = attainment(predicted);
  row.live_goodput_rps = static_cast<double>(live.on_time) * l.goodput_per_on_time;
  row.predicted_goodput_rps = static_cast<double>(predicted.on_time) * p.goodput_per_on_time;
  row.live_p99_ms = live.p99_ms;
  row.predicted_p99_ms = predicted.p99_ms;
  return row;
}

}  // namespace

std::optional<LoadWindow> load_window(const JsonCursor& run) {
  const auto series = run.find("timeseries");
  if (!series) return std::nullopt;
  const double bin_s = series->double_or("bin_s", 0, 0, 1e6);
  const auto bins = series->at("arrivals");
  std::vector<double> n(bins.size());
  std::optional<std::size_t> first, last;
  for (std::size_t i = 0; i < n.size(); ++i)
    if ((n[i] = bins[i].as_double(0, 1e15)) > 0) {
      if (!first) first = i;
      last = i;
    }
  if (!first || bin_s <= 0) return std::nullopt;
  LoadWindow w{static_cast<double>(*first) * bin_s, static_cast<double>(*last + 1) * bin_s, 0};
  for (const double x : n)
    w.arrivals += x;
  if (*last - *first >= 2) {
    double inside = 0;
    for (auto i = *first + 1; i < *last; ++i)
      inside += n[i];
    const double rate = inside / (static_cast<double>(*last - *first - 1) * bin_s);
    if (rate > 0) {
      w.from_s = static_cast<double>(*first + 1) * bin_s - std::min(bin_s, n[*first] / rate);
      w.to_s = static_cast<double>(*last) * bin_s + std::min(bin_s, n[*last] / rate);
    }
  }
  return w;
}

bool is_live_run(const nlohmann::json& run) {
  const auto* parts = run.is_object() && run.contains("subclusters") ? &run["subclusters"] : nullptr;
  return parts && parts->is_object() && parts->value("partition", std::string()) == "live";
}

PredictionReport compare_with_prediction(const nlohmann::json& live, const nlohmann::json& predicted,
                                         const std::string& live_name, const std::string& predicted_name) {
  const auto l = figures_of(live, live_name);
  const auto p = figures_of(predicted, predicted_name);
  PredictionReport report;
  report.total = side_by_side("all", l.total, p.total, l, p);
  const ModelCounts none;
  for (const auto& model : l.order) {
    const auto& lc = l.models.at(model);
    const auto it = p.models.find(model);
    const auto& pc = it == p.models.end() ? none : it->second;
    report.models.push_back(side_by_side(model, lc, pc, l, p));
    auto& out = report.differences;
    const double gap = 100 * (attainment(lc) - attainment(pc));
    if (std::abs(gap) >= 0.1)
      out.push_back({std::abs(gap), model + ": " + format_fixed(100 * attainment(lc), 2) + " % on time live, " +
                                        format_fixed(100 * attainment(pc), 2) + " % predicted (" +
                                        (gap > 0 ? "+" : "") + format_fixed(gap, 2) + " points)"});
    // Each way of missing, as a share of the model's requests on either side.
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> misses;
    misses["late"] = {lc.late, pc.late};
    for (const auto& [reason, n] : lc.drops)
      misses["dropped: " + reason].first = n;
    for (const auto& [reason, n] : pc.drops)
      misses["dropped: " + reason].second = n;
    for (const auto& [how, n] : misses) {
      const double lp = share_pct(n.first, lc.arrivals), pp = share_pct(n.second, pc.arrivals);
      if (std::abs(lp - pp) < 0.1) continue;
      out.push_back({std::abs(lp - pp), model + ": " + how + " " + std::to_string(n.first) + " live (" +
                                            format_fixed(lp, 2) + " %), " + std::to_string(n.second) + " predicted (" +
                                            format_fixed(pp, 2) + " %)"});
    }
  }
  if (!l.timeline || !p.timeline) {
    report.notes.push_back("batch times and contention not compared: " + (l.timeline
                                                                              ? predicted_name + ": " + p.timeline_error
                                                                              : live_name + ": " + l.timeline_error));
  } else {
    // Batch times: per model, the live median of each batch size over the predicted one, their
    // geometric mean weighted by the live batches of that size.
    const auto lm = batch_medians(*l.timeline), pm = batch_medians(*p.timeline);
    for (const auto& [model, sizes] : lm) {
      const auto it = pm.find(model);
      if (it == pm.end()) continue;
      double log_sum = 0;
      std::size_t n = 0;
      for (const auto& [size, median] : sizes) {
        const auto other = it->second.find(size);
        if (other == it->second.end() || other->second.first <= 0) continue;
        log_sum += static_cast<double>(median.second) * std::log(median.first / other->second.first);
        n += median.second;
      }
      if (n == 0) continue;
      const double ratio = std::exp(log_sum / static_cast<double>(n));
      if (std::abs(ratio - 1) < 0.03) continue;
      report.differences.push_back({100 * std::abs(ratio - 1), model + ": live batches took " + format_fixed(ratio, 2) +
                                                                   "x the predicted time (median per batch size, " +
                                                                   std::to_string(n) + " live batches)"});
    }
    const auto lb = beside_fraction(*l.timeline), pb = beside_fraction(*p.timeline);
    if (lb && pb && std::abs(*lb - *pb) >= 0.02)
      report.differences.push_back(
          {100 * std::abs(*lb - *pb), "slots ran beside another busy slot of their device " +
                                          format_fixed(100 * *lb, 1) + " % of their busy time live, " +
                                          format_fixed(100 * *pb, 1) + " % predicted (contention slows both)"});
  }
  std::stable_sort(report.differences.begin(), report.differences.end(),
                   [](const auto& a, const auto& b) { return a.weight > b.weight; });
  return report;
}

}  // namespace servescope::engine
