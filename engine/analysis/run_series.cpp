#include "engine/analysis/run_series.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <vector>

#include "engine/metrics/gpu_class_busy.h"
#include "model/core/text.h"
#include "model/io/json_cursor.h"
#include "model/profile/gpu_share.h"

namespace servescope::engine {
namespace {

constexpr double kAnyNumber = std::numeric_limits<double>::max();

void expect_kind(const JsonCursor& document, const std::string& kind) {
  if (const auto k = document.at("kind"); k.value() != kind)
    k.fail("expected \"" + kind + "\", got " + describe_json(k.value()));
}

template <typename Count>
void add_attainment_and_goodput(std::span<const Count> arrivals, std::span<const Count> on_time, double bin_s,
                                Series& attainment_pct, Series& goodput_rps) {
  for (std::size_t b = 0; b < arrivals.size() && b < on_time.size(); ++b) {
    const double x = (static_cast<double>(b) + 0.5) * bin_s;
    const auto a = static_cast<double>(arrivals[b]);
    const auto ok = static_cast<double>(on_time[b]);
    if (a > 0) attainment_pct.points.push_back({x, 100.0 * std::min(ok, a) / a});
    goodput_rps.points.push_back({x, ok / bin_s});
  }
}

}  // namespace

void attainment_and_goodput(std::span<const std::uint64_t> arrivals, std::span<const std::uint64_t> on_time,
                            double bin_s, Series& attainment_pct, Series& goodput_rps) {
  attainment_pct.name = "SLO attainment";
  goodput_rps.name = "goodput";
  attainment_pct.points.clear();
  goodput_rps.points.clear();
  add_attainment_and_goodput(arrivals, on_time, bin_s, attainment_pct, goodput_rps);
}

std::vector<std::uint64_t> coarser_bins(std::span<const std::uint64_t> counts, std::size_t k) {
  k = std::max<std::size_t>(k, 1);
  std::vector<std::uint64_t> out((counts.size() + k - 1) / k, 0);
  for (std::size_t b = 0; b < counts.size(); ++b)
    out[b / k] += counts[b];
  return out;
}

RunSeries run_series(const nlohmann::json& json, const std::string& what) {
  const JsonCursor run(json, what);
  expect_kind(run, "run-result");
  RunSeries out;
  out.attainment_pct.name = "SLO attainment";
  out.goodput_rps.name = "goodput";
  out.batch_sizes.name = "batches";
  out.latency_cdf.name = "latency CDF";
  out.advised_gpus.name = "advised GPUs";
  out.used_gpus.name = "GPUs in use";

  const auto ts = run.at("timeseries");
  const auto bin = ts.at("bin_s");
  const double bin_s = bin.as_double(0, kAnyNumber);
  if (!(bin_s > 0)) bin.fail("must be positive");
  const auto arrivals = ts.at("arrivals"), on_time = ts.at("on_time");
  if (arrivals.size() != on_time.size()) ts.fail("arrivals and on_time must be arrays of one length");
  std::vector<double> arrived(arrivals.size()), in_time(on_time.size());
  for (std::size_t b = 0; b < arrivals.size(); ++b) {
    arrived[b] = arrivals.element(b).as_double(0, kAnyNumber);
    in_time[b] = on_time.element(b).as_double(0, kAnyNumber);
  }
  add_attainment_and_goodput<double>(arrived, in_time, bin_s, out.attainment_pct, out.goodput_rps);

  // Busy time per class, bin by bin, as the run's busy_by_type defines it (metrics/gpu_class_busy.h):
  // each slot's share-weighted busy fraction over its class's physical GPUs. Runs written before
  // the slots' physical GPUs were kept count each slot as its share of one.
  const auto gpus = run.at("gpus");
  const auto types = gpus.at("types"), shares = gpus.at("shares");
  const auto physical = gpus.find("physical");
  if (physical && physical->size() != types.size())
    physical->fail("expected one physical GPU per entry of $.gpus.types (" + std::to_string(types.size()) + "), got " +
                   std::to_string(physical->size()));
  const auto busy = ts.at("gpu_busy");
  if (types.size() != busy.size())
    busy.fail("expected one series per GPU of $.gpus.types (" + std::to_string(types.size()) + "), got " +
              std::to_string(busy.size()));
  std::vector<GpuSlotClass> slots;
  std::map<std::string, std::vector<double>> used_by_type;  // type → Σ busy·share per bin
  // Per bin, the GPUs busy more than 1 % of it.
  std::vector<double> used;
  for (std::size_t g = 0; g < busy.size(); ++g) {
    GpuSlotClass slot{types.element(g).as_string(true), 1, std::nullopt};
    // A GPU without a share, or with one this build cannot read, counts as a whole GPU.
    if (g < shares.size())
      if (const auto parsed = GpuShare::parse(shares.element(g).as_string(true))) slot.share = parsed->fraction();
    if (physical) slot.physical = static_cast<std::uint32_t>(physical->element(g).as_int(0, UINT32_MAX));
    auto& sum = used_by_type[slot.type];
    const auto series = busy.element(g);
    sum.resize(std::max(sum.size(), series.size()), 0.0);
    used.resize(std::max(used.size(), series.size()), 0.0);
    for (std::size_t b = 0; b < series.size(); ++b) {
      const double fraction = series.element(b).as_double(0, kAnyNumber);
      sum[b] += slot.share * fraction;
      used[b] += fraction > 0.01 ? 1 : 0;
    }
    slots.push_back(std::move(slot));
  }
  const auto capacity = class_capacity(slots);
  // Busy time uses the same bins, running on past the last arrival while queued work drains.
  const double busy_bin_s = bin_s;
  for (const auto& [type, sum] : used_by_type) {
    Series s{type, {}};
    const double gpus_of_type = capacity.at(type);
    for (std::size_t b = 0; b < sum.size(); ++b)
      s.points.push_back(
          {(static_cast<double>(b) + 0.5) * busy_bin_s, gpus_of_type > 0 ? 100.0 * sum[b] / gpus_of_type : 0});
    out.busy_by_type.push_back(std::move(s));
  }
  for (std::size_t b = 0; b < used.size(); ++b)
    out.used_gpus.points.push_back({(static_cast<double>(b) + 0.5) * busy_bin_s, used[b]});

  if (const auto h = run.find("batch_size_histogram")) {
    h->expect_object();
    for (const auto& [size, _] : h->value().items()) {
      const auto count = h->at(size);
      const auto batch = parse_integer(size);
      if (!batch || *batch < 1) count.fail("expected a batch size (a whole number from 1) as the key");
      out.batch_sizes.points.push_back(
          {static_cast<double>(*batch),
           static_cast<double>(count.as_int(0, std::numeric_limits<std::int64_t>::max()))});
    }
    std::ranges::sort(out.batch_sizes.points, {}, &SeriesPoint::x);
  }
  if (const auto cdf = run.find("latency_cdf_ms"))
    for (std::size_t k = 0; k < cdf->size(); ++k) {
      const auto p = cdf->element(k);
      if (p.size() != 2) p.fail("expected [ms, fraction], got " + std::to_string(p.size()) + " values");
      out.latency_cdf.points.push_back({p.element(0).as_double(0, kAnyNumber), p.element(1).as_double(0, 1)});
    }
  if (const auto a = run.find("autoscaling"))
    if (const auto windows = a->find("windows"))
      for (std::size_t k = 0; k < windows->size(); ++k) {
        const auto w = windows->element(k);
        const auto gpus_of = [&](const char* key) { return w.double_or(key, 0, 0, kAnyNumber); };
        out.advised_gpus.points.push_back({w.double_or("start_s", 0, -kAnyNumber, kAnyNumber),
                                           gpus_of("gpus") + gpus_of("add") - gpus_of("release")});
      }
  return out;
}

Series attainment_vs_load(const nlohmann::json& json, const std::string& what) {
  const JsonCursor sweep(json, what);
  expect_kind(sweep, "load-sweep");
  Series s;
  s.name = sweep.string_or("system", "");
  if (const auto plan = sweep.string_or("plan_system", ""); !plan.empty()) s.name += " (" + plan + " plan)";
  const auto points = sweep.at("points");
  for (std::size_t k = 0; k < points.size(); ++k) {
    const auto p = points.element(k);
    s.points.push_back(
        {p.at("load_factor").as_double(0, kAnyNumber), 100.0 * p.at("slo_attainment").as_double(0, kAnyNumber)});
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
