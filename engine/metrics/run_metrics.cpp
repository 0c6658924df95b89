#include "engine/metrics/run_metrics.h"

#include <algorithm>

namespace servescope::engine {

MetricsCollector::MetricsCollector(std::size_t models, std::size_t gpus, Time window_start, Time window_end,
                                   Duration bin)
    : models_(models), window_start_(window_start), window_end_(window_end), bin_(bin), busy_(gpus) {}

void MetricsCollector::on_arrival(const Request& r) {
  const auto b = bin_of(r.arrival);
  if (b >= arrivals_bin_.size()) {
    arrivals_bin_.resize(b + 1, 0);
    on_time_bin_.resize(b + 1, 0);
  }
  ++arrivals_bin_[b];
  if (counts(r)) ++models_[r.model].arrivals;
}

void MetricsCollector::on_drop(const Request& r, DropReason why, Time) {
  if (!counts(r)) return;
  auto& m = models_[r.model];
  ++m.dropped;
  ++m.drops_by_reason[static_cast<std::size_t>(why)];
}

void MetricsCollector::on_batch(const Batch& b, Time start, Time end, bool completed) {
  auto& busy = busy_[b.gpu];
  // Spread the busy interval over the bins it covers.
  for (Time t = start; t < end;) {
    const auto bin = bin_of(t);
    const Time bin_end = Duration::nanoseconds(static_cast<std::int64_t>(bin + 1) * bin_.count_ns());
    const Time stop = std::min(end, bin_end);
    if (bin >= busy.size()) busy.resize(bin + 1, 0);
    busy[bin] += (stop - t).count_ns();
    t = stop;
  }
  if (!completed || b.requests.empty() || !counts(b.requests.front())) return;
  auto& m = models_[b.model];
  const auto size = b.requests.size();
  if (size >= m.batch_sizes.size()) m.batch_sizes.resize(size + 1, 0);
  ++m.batch_sizes[size];
  ++m.batches;
}

void MetricsCollector::on_complete(const Request& r, Time start, Time end) {
  const bool in_time = end <= r.deadline;
  if (in_time) {
    const auto b = bin_of(r.arrival);
    if (b < on_time_bin_.size()) ++on_time_bin_[b];
  }
  if (!counts(r)) return;
  auto& m = models_[r.model];
  ++m.completed;
  if (in_time) ++m.on_time;
  m.latency.add(end - r.arrival);
  m.queueing.add(start - r.arrival);
}

ModelRunStats MetricsCollector::total() const {
  ModelRunStats t;
  t.latency = LatencyHistogram(8);
  t.queueing = LatencyHistogram(8);
  for (const auto& m : models_) {
    t.arrivals += m.arrivals;
    t.completed += m.completed;
    t.on_time += m.on_time;
    t.dropped += m.dropped;
    for (std::size_t i = 0; i < t.drops_by_reason.size(); ++i)
      t.drops_by_reason[i] += m.drops_by_reason[i];
    t.latency.merge(m.latency);
    t.queueing.merge(m.queueing);
    if (m.batch_sizes.size() > t.batch_sizes.size()) t.batch_sizes.resize(m.batch_sizes.size(), 0);
    for (std::size_t i = 0; i < m.batch_sizes.size(); ++i)
      t.batch_sizes[i] += m.batch_sizes[i];
    t.batches += m.batches;
  }
  return t;
}

std::vector<double> MetricsCollector::gpu_busy_fraction() const {
  std::vector<double> out;
  const auto first = bin_of(window_start_);
  const auto last = bin_of(window_end_ - Duration::nanoseconds(1));
  const double span = static_cast<double>((window_end_ - window_start_).count_ns());
  for (const auto& busy : busy_) {
    // Whole bins inside the window; the window is bin-aligned when the caller chooses so.
    std::int64_t sum = 0;
    for (std::size_t b = first; b <= last && b < busy.size(); ++b)
      sum += busy[b];
    out.push_back(span > 0 ? std::min(1.0, static_cast<double>(sum) / span) : 0.0);
  }
  return out;
}

}  // namespace servescope::engine
