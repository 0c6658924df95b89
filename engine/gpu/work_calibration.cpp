#include "engine/gpu/work_calibration.h"

#include <algorithm>
#include <cmath>

#include "model/core/error.h"

namespace servescope::engine::gpu {

double CalibrationCheck::relative_error() const {
  if (target_ns <= 0) return 0;
  return std::abs(static_cast<double>(measured_ns - target_ns)) / static_cast<double>(target_ns);
}

LinearCost fit_line(const std::vector<std::pair<double, double>>& points) {
  const auto n = static_cast<double>(points.size());
  double sx = 0, sy = 0;
  for (const auto& [x, y] : points) {
    sx += x;
    sy += y;
  }
  const double mx = sx / n, my = sy / n;
  double sxx = 0, sxy = 0;
  for (const auto& [x, y] : points) {
    sxx += (x - mx) * (x - mx);
    sxy += (x - mx) * (y - my);
  }
  if (points.size() < 2 || sxx <= 0)
    throw QueryError("a calibration line needs at least two probes of different sizes (got " +
                     std::to_string(points.size()) + ")");
  const double slope = sxy / sxx;
  if (!(slope > 0))
    throw QueryError("calibration: the work took no longer as it grew (slope " + std::to_string(slope) +
                     " ns per unit); is the device doing the work?");
  // A negative intercept is noise around a tiny launch cost; time never runs backwards.
  return LinearCost{std::max(0.0, my - slope * mx), slope};
}

TuningKey tuning_key(std::int64_t target_ns, double compute_fraction) {
  return {target_ns, static_cast<int>(std::lround(std::clamp(compute_fraction, 0.0, 1.0) * 1000))};
}

std::int64_t median_run_ns(WorkTimer& timer, const WorkRecipe& recipe, int repeats) {
  std::vector<std::int64_t> runs;
  runs.reserve(static_cast<std::size_t>(std::max(1, repeats)));
  for (int i = 0; i < std::max(1, repeats); ++i)
    runs.push_back(timer.run_ns(recipe));
  const auto mid = runs.begin() + static_cast<std::ptrdiff_t>(runs.size() / 2);
  std::ranges::nth_element(runs, mid);
  return *mid;
}

namespace {

// GEMMs and streams, alternately, each twice the last (so that a fast GPU is not warmed by
// launches alone), until their device time reaches `budget_ns`; at least one of each.
void warm_up(WorkTimer& timer, std::int64_t budget_ns, std::int64_t quantum) {
  std::int64_t spent = 0, gemms = 1, bytes = quantum;
  constexpr std::int64_t kLargestRun = 20'000'000;  // ns: the doubling stops about here
  do {
    const auto gemm_ns = timer.run_ns(WorkRecipe{gemms, 0});
    const auto stream_ns = timer.run_ns(WorkRecipe{0, bytes});
    spent += std::max<std::int64_t>(0, gemm_ns) + std::max<std::int64_t>(0, stream_ns);
    if (gemm_ns < kLargestRun) gemms *= 2;
    if (stream_ns < kLargestRun) bytes *= 2;
  } while (spent < budget_ns);
}

// Doubles `units` from `first` until one run takes a quarter of `budget_ns`, then returns the
// probe points 1×, 2×, 4× … up to there (time in ns by units).
template <typename Make>
std::vector<std::pair<double, double>> probe(WorkTimer& timer, const CalibrationOptions& o, std::int64_t first,
                                             Make make) {
  std::vector<std::pair<double, double>> points;
  for (std::int64_t units = first;; units *= 2) {
    const auto ns = median_run_ns(timer, make(units), o.repeats);
    points.emplace_back(static_cast<double>(units), static_cast<double>(ns));
    if (ns >= o.probe_max_ns / 4 || points.size() >= 40) break;
  }
  return points;
}

}  // namespace

WorkCalibration WorkCalibration::measure(WorkTimer& timer, const CalibrationOptions& options) {
  const auto quantum = timer.stream_quantum_bytes();
  if (quantum <= 0) throw QueryError("calibration: the timer's stream quantum must be positive");
  warm_up(timer, options.warmup_ns, quantum);
  const auto gemm = fit_line(probe(timer, options, 1, [](std::int64_t k) { return WorkRecipe{k, 0}; }));
  const auto stream = fit_line(probe(timer, options, quantum, [](std::int64_t b) { return WorkRecipe{0, b}; }));
  return WorkCalibration(gemm, stream, quantum, options);
}

WorkCalibration::WorkCalibration(LinearCost gemm, LinearCost stream, std::int64_t stream_quantum,
                                 CalibrationOptions options)
    : gemm_(gemm), stream_(stream), stream_quantum_(std::max<std::int64_t>(1, stream_quantum)), options_(options) {
  if (!(gemm_.per_unit_ns > 0) || !(stream_.per_unit_ns > 0))
    throw QueryError("calibration lines must rise (ns per GEMM and per byte must be positive)");
}

std::int64_t WorkCalibration::quantized(double bytes) const {
  if (!(bytes > 0)) return 0;
  const auto q = static_cast<double>(stream_quantum_);
  return static_cast<std::int64_t>(std::llround(bytes / q)) * stream_quantum_;
}

WorkRecipe WorkCalibration::estimate(std::int64_t target_ns, double compute_fraction) const {
  if (target_ns <= 0) return {};
  const double f = std::clamp(compute_fraction, 0.0, 1.0);
  const double target = static_cast<double>(target_ns);
  WorkRecipe r;
  if (f > 0) r.gemms = std::max<std::int64_t>(0, std::llround((f * target - gemm_.fixed_ns) / gemm_.per_unit_ns));
  if (f < 1) r.stream_bytes = quantized(((1 - f) * target - stream_.fixed_ns) / stream_.per_unit_ns);
  if (r.gemms == 0 && r.stream_bytes == 0) {
    if (f >= 0.5)
      r.gemms = 1;
    else
      r.stream_bytes = stream_quantum_;
  }
  return r;
}

TargetTuner::TargetTuner(const WorkCalibration& calibration, std::int64_t target_ns, double compute_fraction)
    : calibration_(&calibration),
      target_ns_(target_ns),
      fraction_(std::clamp(compute_fraction, 0.0, 1.0)),
      per_byte_(calibration.stream().per_unit_ns),
      next_(calibration.estimate(target_ns, compute_fraction)) {}

void TargetTuner::observe(std::int64_t measured_ns) {
  const CalibrationCheck now{target_ns_, measured_ns, next_};
  if (measurements_ == 0 || now.relative_error() < best_.relative_error()) best_ = now;
  if (measurements_ > 0 && now.recipe.gemms == last_.recipe.gemms &&
      now.recipe.stream_bytes != last_.recipe.stream_bytes) {
    const double slope = static_cast<double>(now.measured_ns - last_.measured_ns) /
                         static_cast<double>(now.recipe.stream_bytes - last_.recipe.stream_bytes);
    // Within a factor of four of the calibration line's: two noisy medians a few bytes apart can
    // give any slope, and an unclamped one throws the next recipe far off (or divides by ~0).
    const double line = calibration_->stream().per_unit_ns;
    if (slope > 0) per_byte_ = std::clamp(slope, line / 4, line * 4);
  }
  last_ = now;
  ++measurements_;
  const auto& o = calibration_->options();
  if (best_.relative_error() <= o.tolerance || measurements_ > o.refine_rounds) {
    settled_ = true;
    next_ = best_.recipe;
    return;
  }
  const double miss_ns = static_cast<double>(target_ns_ - measured_ns);
  WorkRecipe next = now.recipe;
  if (fraction_ < 1 || next.stream_bytes > 0) {
    double bytes = static_cast<double>(next.stream_bytes) + miss_ns / per_byte_;
    if (bytes < 0) {  // the GEMMs alone run over: fewer of them, and no stream
      const auto fewer = static_cast<std::int64_t>(std::ceil(-bytes * per_byte_ / calibration_->gemm().per_unit_ns));
      next.gemms = std::max<std::int64_t>(next.gemms > 0 ? 1 : 0, next.gemms - fewer);
      bytes = 0;
    }
    next.stream_bytes = calibration_->quantized(bytes);
    if (next.gemms == 0 && next.stream_bytes == 0) next.stream_bytes = calibration_->stream_quantum();
  } else {
    const double scale = static_cast<double>(target_ns_) / static_cast<double>(std::max<std::int64_t>(1, measured_ns));
    next.gemms = std::max<std::int64_t>(1, std::llround(static_cast<double>(next.gemms) * scale));
  }
  if (next == now.recipe) {  // the granularity allows no closer
    settled_ = true;
    next_ = best_.recipe;
    return;
  }
  next_ = next;
}

CalibrationCheck WorkCalibration::tune(WorkTimer& timer, std::int64_t target_ns, double compute_fraction) {
  const auto key = tuning_key(target_ns, compute_fraction);
  if (const auto it = tuned_.find(key); it != tuned_.end()) return it->second;
  TargetTuner tuner(*this, target_ns, compute_fraction);
  while (!tuner.settled())
    tuner.observe(median_run_ns(timer, tuner.recipe(), options_.repeats));
  if (tuned_.size() >= options_.max_cached) tuned_.erase(tuned_.begin());
  tuned_.emplace(key, tuner.best());
  return tuner.best();
}

}  // namespace servescope::engine::gpu
