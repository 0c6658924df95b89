// Calibrated GPU work (README "GPU execution"). The CUDA executor makes each batch take its
// profiled time on a real GPU by running real work of two kinds: GEMMs for the compute part and a
// streaming kernel for the memory part, so that co-located slots contend for SMs, L2 and DRAM as
// the model's kernels would (gpu-let, seed 003 §4.4: interference follows L2 and DRAM use).
//
// How much of each comes from a calibration pass on the slot itself, under its MPS share, since
// the share changes both rates. The pass fits a line to each kind (time = fixed + units × per
// unit, by medians of repeated runs), sizes a recipe from the two lines, then measures the
// recipe at each target it is asked for and rescales it until it lands within tolerance: the
// lines alone miss by more than 5 % where launch overheads and cache effects bend them.
//
// Qt- and CUDA-free: the arithmetic is tested on a model device (tests/engine/work_calibration_
// test.cpp); cudaexec/cuda_work_timer.h is the WorkTimer that runs on a GPU.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace servescope::engine::gpu {

// What one batch runs: `gemms` square GEMMs of the timer's size, then `stream_bytes` read and
// written by the streaming kernel.
struct WorkRecipe {
  std::int64_t gemms = 0;
  std::int64_t stream_bytes = 0;
  bool operator==(const WorkRecipe&) const = default;
};

// What a tuned recipe is remembered by: the target and the compute fraction in thousandths.
using TuningKey = std::pair<std::int64_t, int>;
TuningKey tuning_key(std::int64_t target_ns, double compute_fraction);

class WorkTimer {
 public:
  virtual ~WorkTimer() = default;
  // Runs the recipe once and returns its duration in nanoseconds as the device timed it.
  virtual std::int64_t run_ns(const WorkRecipe& recipe) = 0;
  // The granularity of the memory part: stream sizes are whole multiples of it. A stream longer
  // than the timer's buffer goes round it again.
  virtual std::int64_t stream_quantum_bytes() const { return 4096; }
};

// time_ns = fixed_ns + units × per_unit_ns.
struct LinearCost {
  double fixed_ns = 0;
  double per_unit_ns = 0;
  double at(double units) const { return fixed_ns + units * per_unit_ns; }
};

// A least-squares line through (units, ns) points; throws QueryError for fewer than two distinct
// unit counts or a line that does not rise.
LinearCost fit_line(const std::vector<std::pair<double, double>>& points);

struct CalibrationOptions {
  int repeats = 5;  // timed runs per probe; their median counts
  // Untimed GEMMs and streams before the first probe, until their device time adds up to this: an
  // idle GPU runs at a fraction of its clock (an H200 at 345 MHz against 1980), and probes on
  // rising clocks make the lines too steep (150 ms of slow clocks: the GEMM line 2.8x too slow).
  std::int64_t warmup_ns = 200'000'000;
  std::int64_t probe_max_ns = 20'000'000;  // the largest probe aims at about this long
  int refine_rounds = 4;                   // measure-and-rescale rounds per target at most
  double tolerance = 0.02;                 // stop refining within this relative error
  std::size_t max_cached = 4096;           // tuned recipes kept (a profile has far fewer targets)
};

// One target's outcome: what it asked for, what the tuned recipe measured.
struct CalibrationCheck {
  std::int64_t target_ns = 0;
  std::int64_t measured_ns = 0;
  WorkRecipe recipe;
  double relative_error() const;
};

class WorkCalibration;

// One target's way to its recipe: run recipe(), report the time with observe(), repeat until
// settled(). The memory part is fine-grained (a quantum of bytes is nanoseconds), so it takes up
// the error wherever the recipe has one; a pure-GEMM recipe is rescaled by whole GEMMs. The
// slope in ns per byte is the calibration line's until two measurements give a secant. Used both
// offline (WorkCalibration::tune, medians of repeats) and online (the slot loop, one batch at a
// time, so a live run pays for no extra GPU work).
class TargetTuner {
 public:
  TargetTuner(const WorkCalibration& calibration, std::int64_t target_ns, double compute_fraction);
  const WorkRecipe& recipe() const { return next_; }
  void observe(std::int64_t measured_ns);
  bool settled() const { return settled_; }
  const CalibrationCheck& best() const { return best_; }
  int measurements() const { return measurements_; }

 private:
  const WorkCalibration* calibration_;
  std::int64_t target_ns_;
  double fraction_;
  double per_byte_;
  WorkRecipe next_;
  CalibrationCheck best_, last_;
  int measurements_ = 0;
  bool settled_ = false;
};

class WorkCalibration {
 public:
  // Probes `timer` with GEMM counts and stream sizes up to options.probe_max_ns and fits both.
  static WorkCalibration measure(WorkTimer& timer, const CalibrationOptions& options = {});
  WorkCalibration(LinearCost gemm, LinearCost stream, std::int64_t stream_quantum, CalibrationOptions options = {});

  const LinearCost& gemm() const { return gemm_; }
  const LinearCost& stream() const { return stream_; }  // per byte

  // The recipe the two lines give for `target_ns`, of which `compute_fraction` (in [0, 1]) runs
  // as GEMMs. Never empty for a positive target: at least one unit of the larger part.
  WorkRecipe estimate(std::int64_t target_ns, double compute_fraction) const;
  std::int64_t quantized(double bytes) const;  // to whole stream quanta, 0 for none
  std::int64_t stream_quantum() const { return stream_quantum_; }
  const CalibrationOptions& options() const { return options_; }
  // The estimate, measured on `timer` and rescaled until within tolerance (or out of rounds);
  // remembered per (target, fraction) so that the run pays for it once.
  CalibrationCheck tune(WorkTimer& timer, std::int64_t target_ns, double compute_fraction);
  // What tune() settled on, by (target, compute fraction in thousandths).
  const std::map<TuningKey, CalibrationCheck>& tuned() const { return tuned_; }

 private:
  LinearCost gemm_, stream_;
  std::int64_t stream_quantum_;
  CalibrationOptions options_;
  std::map<TuningKey, CalibrationCheck> tuned_;
};

// The median of `repeats` timed runs of `recipe`.
std::int64_t median_run_ns(WorkTimer& timer, const WorkRecipe& recipe, int repeats);

}  // namespace servescope::engine::gpu
