// Measuring a model exported into blocks (README "Real models"): every block at every batch size
// and share, after warm-up, repeated, written as the project's block-form profile with the median
// and the 99th percentile and the measured bytes at each cut. The whole model is timed too, to
// say how well the sum of its blocks predicts it.
//
// On the CPU a share 1/s is a number of LibTorch intra-op threads (hardware threads / s), and the
// device type is named after the CPU, so a scenario's gpu_types entry and cluster can use it and
// every planner plans on it. On a GPU (a CUDA LibTorch) a share is an MPS partition, which a
// process gets when it first opens the GPU: a process measures the one share it was started at,
// and the device type is the GPU's catalog entry, as `gpu list` makes it
// (app/cli/torch_gpu_profile.h runs a process per share and joins their tables).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "model/gpu/gpu_catalog.h"
#include "model/profile/model_profile.h"
#include "torchexec/torch_model.h"

namespace servescope::torchexec {

struct ProfileRequest {
  std::vector<int> batches{1, 2, 4, 8};
  std::vector<int> shares{1};  // divisors s: share 1/s of the CPU's threads; on a GPU, the process's one share
  int repeat = 20;             // timed runs per entry (after `warmup`)
  int warmup = 3;
  double slo_multiplier = 5.0;  // default SLO = this × the whole model at batch 1, share 1
  bool keep_samples = false;    // keep every timed run (MeasuredProfile::samples), for benchmarks
};

// Every timed run of one block at one batch and share, in the order they ran.
struct TimedEntry {
  GpuShare share;
  int batch = 1;
  std::size_t block = 0;
  std::vector<Duration> runs;
};

struct ProfileProgress {
  std::size_t done = 0, total = 0;  // timed entries
  std::string what;                 // "block 3, batch 4, share 1/2"
};

// Per share and batch: the whole model's median against the sum of its blocks' medians.
struct WholeModelCheck {
  GpuShare share;
  int batch = 1;
  Duration whole_p50, blocks_p50_sum;
  double error() const;  // sum / whole − 1
};

struct MeasuredProfile {
  GpuSpec device;  // the CPU as a device type (id, name), or the GPU's catalog entry
  int hardware_threads = 1;
  ModelProfile profile;
  std::vector<WholeModelCheck> checks;
  std::vector<TimedEntry> samples;  // with ProfileRequest::keep_samples
};

// This machine's CPU as a device type: "cpu-" and the model name's words, and its thread count.
GpuSpec cpu_device_type();

// Throws QueryError on a bad request, Cancelled when `cancel` is set between entries.
MeasuredProfile profile_model(const TorchModel& model, const ProfileRequest& request,
                              const std::function<void(const ProfileProgress&)>& progress = {},
                              const std::atomic<bool>* cancel = nullptr);

}  // namespace servescope::torchexec
