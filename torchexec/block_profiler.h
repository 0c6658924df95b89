// Measuring a model exported into blocks (README "Real models"): every block at every batch size
// and share, after warm-up, timed until its median is known to within a few per cent (or a fixed
// number of times), written as the project's block-form profile: per entry the median, the 99th
// percentile and the distribution from p5 to p99.9 (issue 46), each fitted monotone over batch
// sizes, and the measured bytes at each cut. The whole model is timed too, to say how well the
// sum of its blocks predicts it; the default SLO is a multiple of its median at batch 1.
//
// Slots of one device slow each other (issue 46): on the CPU, for each share 1/s of two slots or
// more and each batch size, k = 2..s slots of that share run the whole model at once, as threads
// of one process the way the live worker runs its slots, and each one's median beside the others
// over its median alone is the device's contention (model/profile/contention_model.h).
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
#include "model/profile/stable_timing.h"
#include "model/profile/two_modes.h"
#include "torchexec/torch_model.h"

namespace servescope::torchexec {

struct ProfileRequest {
  std::vector<int> batches{1, 2, 4, 8};
  std::vector<int> shares{1};  // divisors s: share 1/s of the CPU's threads; on a GPU, the process's one share
  // Each entry is timed until its median's 95 % interval is within the policy's precision
  // (model/profile/stable_timing.h); RepeatPolicy::fixed(N, warmup) times it N times.
  RepeatPolicy repeat;
  // Each entry is timed in this many rounds spread over the profile (every entry of a share once
  // per round): the first as `repeat` says with its run counts divided by the rounds, each later
  // one as many times again, all runs pooled. A slow spell of the machine then falls on a few
  // runs of many entries, not on all the runs of one (three back-to-back profiles agreed on 29 of
  // 64 entries within 5 % timed in one go).
  int rounds = 3;
  Duration budget;              // for every timed entry together; zero: none (each stops on its own)
  double slo_multiplier = 5.0;  // default SLO = this × the whole model's median at batch 1, first share
  bool contention = true;       // also measure slots of the shares below 1 running at once (CPU)
};

struct ProfileProgress {
  std::size_t done = 0, total = 0;  // timed entries
  std::string what;                 // "block 3, batch 4, share 1/2"
  // The entry finished last: its runs, its median and the median's 95 % interval half-width.
  int runs = 0;
  Duration median;
  double spread = 0;
};

// Per share and batch: the whole model's median against the sum of its blocks' medians.
struct WholeModelCheck {
  GpuShare share;
  int batch = 1;
  Duration whole_p50, blocks_p50_sum;
  double whole_spread = 0;  // the whole model's median's 95 % interval half-width, relative
  int whole_runs = 0;
  double error() const;  // sum / whole − 1
};

// An entry whose timed runs fell in two modes (model/profile/two_modes.h): its median is whichever
// mode most of this profile's runs fell in, and moves between profiles of one machine.
struct BimodalEntry {
  GpuShare share;
  int batch = 1;
  int block = -1;  // −1: the whole model
  TwoModes modes;
};

struct MeasuredProfile {
  GpuSpec device;  // the CPU as a device type (id, name), or the GPU's catalog entry
  int hardware_threads = 1;
  ModelProfile profile;        // each entry's median, 99th percentile and distribution, monotone in batch
  ContentionModel contention;  // the device type's; no samples where no share was below 1
  std::vector<WholeModelCheck> checks;
  std::size_t entries = 0;   // timed entries, the whole model's included
  std::size_t unstable = 0;  // of them, those whose median's interval stayed wider than the precision
  double widest_spread = 0;  // the widest such interval, relative
  std::vector<BimodalEntry> bimodal;
};

// This machine's CPU as a device type: "cpu-" and the model name's words, and its thread count.
GpuSpec cpu_device_type();

// Throws QueryError on a bad request, Cancelled when `cancel` is set between entries.
MeasuredProfile profile_model(const TorchModel& model, const ProfileRequest& request,
                              const std::function<void(const ProfileProgress&)>& progress = {},
                              const std::atomic<bool>* cancel = nullptr);

}  // namespace servescope::torchexec
