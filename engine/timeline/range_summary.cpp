#include "engine/timeline/range_summary.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace servescope::engine {

std::optional<Duration> nearest_rank(std::vector<Duration>& values, double p) {
  if (values.empty()) return std::nullopt;
  // Nearest rank: the smallest value with at least p % of the values at or below it.
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  const auto k = std::clamp<std::size_t>(rank, 1, values.size()) - 1;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

std::vector<float> busy_profile(const TimelineIndex& index, std::size_t row, Time from, Time end, std::size_t bins) {
  std::vector<float> out(bins, 0.0f);
  const auto origin = from.count_ns();
  const auto total = end.count_ns() - origin;
  if (bins == 0 || total <= 0) return out;
  const double bin_ns = static_cast<double>(total) / static_cast<double>(bins);
  std::vector<double> busy(bins, 0.0);
  const auto [first, last] = index.range(row, from, end);
  const auto boxes = index.boxes(row);
  for (auto at = first; at < last; ++at) {
    const auto& b = boxes[at];
    // On the profile's own axis, from 0 to `total`.
    const auto lo = static_cast<double>(std::max<std::int64_t>(b.start.count_ns() - origin, 0));
    const auto hi = static_cast<double>(std::min(b.end.count_ns() - origin, total));
    for (auto k = static_cast<std::size_t>(lo / bin_ns); k < bins && static_cast<double>(k) * bin_ns < hi; ++k) {
      const double a = std::max(lo, static_cast<double>(k) * bin_ns);
      const double e = std::min(hi, static_cast<double>(k + 1) * bin_ns);
      if (e > a) busy[k] += e - a;
    }
  }
  for (std::size_t k = 0; k < bins; ++k)
    out[k] = static_cast<float>(std::min(1.0, busy[k] / bin_ns));
  return out;
}

std::uint64_t ModelViolations::dropped_total() const {
  std::uint64_t n = 0;
  for (const auto d : dropped)
    n += d;
  return n;
}

std::optional<double> ModelViolations::attainment_pct() const {
  const auto all = finished + dropped_total();
  if (!requests_known || all == 0) return std::nullopt;
  return 100.0 * static_cast<double>(finished - late) / static_cast<double>(all);
}

RangeSummariser::RangeSummariser(const TimelineData& data, const TimelineIndex& index)
    : data_(data), index_(index), has_requests_(!data.requests.empty()) {
  if (!has_requests_) return;
  // Each request's last batch: where it finished (a pipeline carries it through every stage).
  struct Last {
    Time end;
    Time arrival, deadline;
    std::uint32_t span = 0;
  };
  std::unordered_map<RequestId, Last> last;
  last.reserve(data.requests.size());
  for (std::size_t i = 0; i < data.spans.size(); ++i) {
    const auto& span = data.spans[i];
    if (span.preempted) continue;
    for (const auto& r : data.requests_of(i)) {
      const auto at = static_cast<std::uint32_t>(i);
      auto [it, fresh] = last.try_emplace(r.id, Last{span.end, r.arrival, r.deadline, at});
      if (!fresh && span.end > it->second.end) it->second = {span.end, r.arrival, r.deadline, at};
    }
  }
  finishes_.reserve(last.size());
  for (const auto& [id, l] : last)
    finishes_.push_back({l.end, l.end - l.arrival, l.end - l.deadline, l.span});
  std::ranges::sort(finishes_, {}, &Finish::at);
}

RangeSummary RangeSummariser::summarise(Time from, Time to) const {
  RangeSummary out;
  out.from = from;
  out.to = to;
  if (to <= from) to = from;
  const double length = static_cast<double>((to - from).count_ns());
  out.busy.assign(index_.rows(), 0.0);
  for (std::size_t row = 0; row < index_.rows(); ++row) {
    const auto [first, last] = index_.range(row, from, to);
    const auto boxes = index_.boxes(row);
    // The union of the row's batches inside the range (a row's batches may overlap).
    Time covered_to = from;
    std::int64_t busy_ns = 0;
    for (auto k = first; k < last; ++k) {
      const auto& b = boxes[k];
      if (b.start >= from && b.start < to) ++out.batches;
      const auto a = std::max(b.start, covered_to);
      const auto e = std::min(b.end, to);
      if (e > a) {
        busy_ns += (e - a).count_ns();
        covered_to = e;
      }
    }
    out.busy[row] = length > 0 ? static_cast<double>(busy_ns) / length : 0.0;
  }
  const auto dropped_from = std::ranges::lower_bound(data_.drops, from, {}, &DropMark::time);
  const auto dropped_to = std::ranges::lower_bound(dropped_from, data_.drops.end(), to, {}, &DropMark::time);
  out.dropped = static_cast<std::uint64_t>(dropped_to - dropped_from);
  std::vector<ModelViolations> by_model(data_.models.size());
  std::vector<std::vector<Duration>> model_latencies(data_.models.size());
  for (std::uint32_t m = 0; m < by_model.size(); ++m) {
    by_model[m].model = m;
    by_model[m].requests_known = has_requests_;
  }
  for (auto d = dropped_from; d != dropped_to; ++d) {
    if (d->model >= by_model.size()) continue;
    auto& v = by_model[d->model];
    ++v.dropped[static_cast<std::size_t>(d->reason)];
    if (!v.first_drop) v.first_drop = d->time;
  }
  const auto keep_models = [&] {
    for (std::size_t m = 0; m < by_model.size(); ++m) {
      auto& v = by_model[m];
      v.p50 = nearest_rank(model_latencies[m], 50);
      v.p99 = nearest_rank(model_latencies[m], 99);
      if (v.finished > 0 || v.dropped_total() > 0) out.models.push_back(v);
    }
  };
  if (!has_requests_) {
    keep_models();
    return out;
  }
  const auto begin = std::ranges::lower_bound(finishes_, from, {}, &Finish::at);
  const auto end = std::ranges::lower_bound(begin, finishes_.end(), to, {}, &Finish::at);
  std::vector<Duration> latencies;
  latencies.reserve(static_cast<std::size_t>(end - begin));
  std::uint64_t late = 0;
  for (auto it = begin; it != end; ++it) {
    latencies.push_back(it->latency);
    late += it->late() ? 1u : 0u;
    const auto model = data_.spans[it->span].model;
    if (model >= by_model.size()) continue;
    auto& v = by_model[model];
    ++v.finished;
    model_latencies[model].push_back(it->latency);
    if (!it->late()) continue;
    ++v.late;
    if (!v.worst_span || it->lateness > v.worst_lateness) {
      v.worst_span = it->span;
      v.worst_lateness = it->lateness;
    }
  }
  keep_models();
  out.finished = latencies.size();
  out.late = late;
  out.p50 = nearest_rank(latencies, 50);
  out.p99 = nearest_rank(latencies, 99);
  return out;
}

}  // namespace servescope::engine
