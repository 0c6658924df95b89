// Interference measured on a real GPU (README "GPU execution"; `measure-interference`): gpu-let's
// training data (seed 003 §4.4, digest §4.7) from co-runs of calibrated workloads instead of the
// paper's five models. Each workload mixes GEMMs and streaming in its own proportion, so the set
// spans compute-bound to DRAM-bound; each co-run puts two of them on the two MPS partitions of one
// GPU (20:80, 40:60, 50:50 and their mirrors), runs both for the same window, and compares each
// side's time with its time alone on the same partition.
//
// The features are measured too, at 100 % as Nsight's are: DRAM utilisation is the workload's
// streamed bytes over its time, against the stream's asymptotic rate (the calibration line); L2
// utilisation is its L2 traffic (streamed bytes plus its GEMMs' tile reads) over its time, against
// the L2's streaming rate on a buffer that fits in it. They are throughput shares, not Nsight's
// counters; the fit needs features that order the workloads as the counters would.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "engine/glet/interference_fit.h"
#include "engine/gpuexec/slot_process.h"
#include "model/profile/model_profile.h"

namespace servescope::engine::gpuexec {

struct SyntheticWorkload {
  std::string name;
  double compute_fraction = 0.5;  // of its time in GEMMs
};
// compute (1.0), compute-heavy (0.8), mixed (0.5), memory-heavy (0.2), memory (0.0).
std::vector<SyntheticWorkload> default_workloads();

// One side of one co-run, as fit-interference reads it (its CSV's columns).
struct CorunRow {
  std::string model;
  int batch = 0, size_percent = 0;
  std::string other_model;
  int other_batch = 0, other_size_percent = 0;
  double solo_ms = 0, corun_ms = 0;
  double overlap = 0;  // of this side's busy time, the share the other side was busy too
};

struct CorunOptions {
  // The slot process at `percent` % of the GPU's threads.
  std::function<SlotCommand(int percent)> slot_command;
  std::string gpu;  // the catalog id the utilisation is recorded under
  std::vector<SyntheticWorkload> workloads = default_workloads();
  std::vector<int> batches{2, 8, 32};
  std::vector<int> sizes{20, 40, 50};     // one side's %, the other has the rest; both ways round
  std::int64_t ns_per_sample = 200'000;   // a workload's time per batch item alone on the whole GPU
  std::chrono::milliseconds window{300};  // each co-run (and solo) runs this long
  std::chrono::milliseconds ready_within{std::chrono::minutes(2)};
  std::function<void(const std::string&)> progress;
  // Called after each co-run with every row so far, so that a run cut short (a timeout, a lost
  // GPU) still leaves what it measured.
  std::function<void(const std::vector<CorunRow>&)> rows_so_far;
};

struct CorunResult {
  std::string device;
  std::vector<CorunRow> rows;
  std::vector<UtilisationProfile> utilisation;  // one per workload, on options.gpu
  double mean_overlap = 0;
};

// Throws live::ExecutorFailure when a slot cannot start or fails (its message says why).
CorunResult measure_coruns(const CorunOptions& options);

// The rows as fit-interference's CSV (header model,batch,size_percent,other_model,other_batch,
// other_size_percent,solo_ms,corun_ms).
std::string coruns_csv(const std::vector<CorunRow>& rows);

// gpu-let's interference model fitted to the co-runs with their measured features (the fit
// fit-interference makes from the CSV and the profiles file), named after options.gpu.
InterferenceFit fit_coruns(const CorunResult& result, const std::string& gpu, double train_fraction = 0.7,
                           std::uint64_t seed = 1);

// Of `a`'s busy time (its runs' host intervals), the share that `b` was busy too.
double busy_overlap(const std::vector<TimedRun>& a, const std::vector<TimedRun>& b);

}  // namespace servescope::engine::gpuexec
