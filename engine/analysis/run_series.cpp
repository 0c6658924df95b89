#include "engine/analysis/run_series.h"

#include <algorithm>
#include <map>

#include "model/core/error.h"
#include "model/profile/gpu_share.h"

namespace servescope::engine {
namespace {

const nlohmann::json& need(const nlohmann::json& j, const char* key, const std::string& what, const std::string& path) {
  const auto it = j.find(key);
  if (it == j.end()) throw InputError(what, path + "." + key, "missing (written by servescope simulate)");
  return *it;
}

double number(const nlohmann::json& v, const std::string& what, const std::string& path) {
  if (!v.is_number()) throw InputError(what, path, "expected a number");
  return v.get<double>();
}

}  // namespace

RunSeries run_series(const nlohmann::json& run, const std::string& what) {
  if (!run.is_object() || run.value("kind", "") != "run-result")
    throw InputError(what, "$.kind", "expected \"run-result\"");
  RunSeries out;
  out.attainment_pct.name = "SLO attainment";
  out.goodput_rps.name = "goodput";
  out.batch_sizes.name = "batches";
  out.latency_cdf.name = "latency CDF";
  out.advised_gpus.name = "advised GPUs";
  out.used_gpus.name = "GPUs in use";

  const auto& ts = need(run, "timeseries", what, "$");
  const double bin_s = number(need(ts, "bin_s", what, "$.timeseries"), what, "$.timeseries.bin_s");
  if (!(bin_s > 0)) throw InputError(what, "$.timeseries.bin_s", "must be positive");
  const auto& arrivals = need(ts, "arrivals", what, "$.timeseries");
  const auto& on_time = need(ts, "on_time", what, "$.timeseries");
  if (!arrivals.is_array() || !on_time.is_array() || arrivals.size() != on_time.size())
    throw InputError(what, "$.timeseries", "arrivals and on_time must be arrays of one length");
  for (std::size_t b = 0; b < arrivals.size(); ++b) {
    const double x = (static_cast<double>(b) + 0.5) * bin_s;
    const double a = number(arrivals[b], what, "$.timeseries.arrivals[" + std::to_string(b) + "]");
    const double ok = number(on_time[b], what, "$.timeseries.on_time[" + std::to_string(b) + "]");
    if (a > 0) out.attainment_pct.points.push_back({x, 100.0 * std::min(ok, a) / a});
    out.goodput_rps.points.push_back({x, ok / bin_s});
  }

  // Busy time per class: each GPU's share-weighted busy fraction, averaged over its class's
  // physical capacity (the sum of its shares), bin by bin.
  const auto& gpus = need(run, "gpus", what, "$");
  const auto& types = need(gpus, "types", what, "$.gpus");
  const auto& shares = need(gpus, "shares", what, "$.gpus");
  const auto& busy = need(ts, "gpu_busy", what, "$.timeseries");
  if (!types.is_array() || !busy.is_array() || types.size() != busy.size())
    throw InputError(what, "$.timeseries.gpu_busy", "expected one series per GPU of $.gpus.types");
  std::map<std::string, std::pair<std::vector<double>, double>> by_type;  // type → (Σ busy·share per bin, Σ share)
  std::size_t bins = 0;
  for (std::size_t g = 0; g < busy.size(); ++g) {
    const auto type = types[g].is_string() ? types[g].get<std::string>() : std::string("?");
    double share = 1;
    if (g < shares.size() && shares[g].is_string())
      if (const auto parsed = GpuShare::parse(shares[g].get<std::string>())) share = parsed->fraction();
    auto& [sum, capacity] = by_type[type];
    const auto& series = busy[g];
    if (!series.is_array())
      throw InputError(what, "$.timeseries.gpu_busy[" + std::to_string(g) + "]", "expected an array");
    sum.resize(std::max(sum.size(), series.size()), 0.0);
    bins = std::max(bins, series.size());
    for (std::size_t b = 0; b < series.size(); ++b)
      sum[b] += share * number(series[b], what, "$.timeseries.gpu_busy[" + std::to_string(g) + "]");
    capacity += share;
  }
  // Busy time uses the same bins, running on past the last arrival while queued work drains.
  const double busy_bin_s = bin_s;
  for (const auto& [type, entry] : by_type) {
    Series s{type, {}};
    for (std::size_t b = 0; b < entry.first.size(); ++b)
      s.points.push_back({(static_cast<double>(b) + 0.5) * busy_bin_s, 100.0 * entry.first[b] / entry.second});
    out.busy_by_type.push_back(std::move(s));
  }
  for (std::size_t b = 0; b < bins; ++b) {
    int used = 0;
    for (const auto& series : busy)
      used += b < series.size() && series[b].is_number() && series[b].get<double>() > 0.01 ? 1 : 0;
    out.used_gpus.points.push_back({(static_cast<double>(b) + 0.5) * busy_bin_s, static_cast<double>(used)});
  }

  if (const auto h = run.find("batch_size_histogram"); h != run.end() && h->is_object()) {
    for (const auto& [size, count] : h->items())
      out.batch_sizes.points.push_back({std::stod(size), number(count, what, "$.batch_size_histogram." + size)});
    std::ranges::sort(out.batch_sizes.points, {}, &SeriesPoint::x);
  }
  if (const auto c = run.find("latency_cdf_ms"); c != run.end() && c->is_array())
    for (std::size_t k = 0; k < c->size(); ++k) {
      const auto& p = (*c)[k];
      if (!p.is_array() || p.size() != 2)
        throw InputError(what, "$.latency_cdf_ms[" + std::to_string(k) + "]", "expected [ms, fraction]");
      out.latency_cdf.points.push_back(
          {number(p[0], what, "$.latency_cdf_ms"), number(p[1], what, "$.latency_cdf_ms")});
    }
  if (const auto a = run.find("autoscaling"); a != run.end() && a->contains("windows"))
    for (const auto& w : (*a)["windows"])
      out.advised_gpus.points.push_back(
          {w.value("start_s", 0.0), w.value("gpus", 0.0) + w.value("add", 0.0) - w.value("release", 0.0)});
  return out;
}

Series attainment_vs_load(const nlohmann::json& sweep, const std::string& what) {
  if (!sweep.is_object() || sweep.value("kind", "") != "load-sweep")
    throw InputError(what, "$.kind", "expected \"load-sweep\"");
  Series s;
  s.name = sweep.value("system", "");
  if (const auto plan = sweep.value("plan_system", ""); !plan.empty()) s.name += " (" + plan + " plan)";
  const auto& points = need(sweep, "points", what, "$");
  for (std::size_t k = 0; k < points.size(); ++k) {
    const auto path = "$.points[" + std::to_string(k) + "]";
    s.points.push_back({number(need(points[k], "load_factor", what, path), what, path + ".load_factor"),
                        100.0 * number(need(points[k], "slo_attainment", what, path), what, path + ".slo_attainment")});
  }
  std::ranges::sort(s.points, {}, &SeriesPoint::x);
  return s;
}

std::vector<SeriesPoint> decimate(const std::vector<SeriesPoint>& points, std::size_t max_points) {
  if (points.size() <= max_points || max_points < 4) return points;
  const std::size_t buckets = max_points / 4;
  std::vector<SeriesPoint> out;
  out.reserve(buckets * 4);
  for (std::size_t b = 0; b < buckets; ++b) {
    const auto lo = points.size() * b / buckets, hi = points.size() * (b + 1) / buckets;
    if (lo >= hi) continue;
    std::size_t min = lo, max = lo;
    for (auto k = lo; k < hi; ++k) {
      if (points[k].y < points[min].y) min = k;
      if (points[k].y > points[max].y) max = k;
    }
    // First, the extremes in their order, last: the bucket's shape with at most four points.
    std::vector<std::size_t> keep{lo, std::min(min, max), std::max(min, max), hi - 1};
    keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
    for (const auto k : keep)
      out.push_back(points[k]);
  }
  return out;
}

}  // namespace servescope::engine
