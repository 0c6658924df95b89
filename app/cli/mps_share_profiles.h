// `profile MODEL_DIR --device cuda` (README "Real models", "GPU execution"): a model exported into
// blocks measured with LibTorch on a GPU at MPS shares. MPS gives a process its share of a GPU
// when the process first opens it (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE), so no process can measure
// two shares: this program is started again once per share, one after another, each with its
// percentage and a folder to write its profile and device type to, and their tables make one
// profile. Shares below the whole need the MPS daemon, which is started where it is not running
// (engine/gpu/mps_control.h) and otherwise refused, saying why.
#pragma once

#include <string>
#include <vector>

#include "model/gpu/gpu_catalog.h"
#include "model/profile/model_profile.h"

namespace servescope::cli {

struct MpsShareProfileRequest {
  std::string program;             // started once per share (this program, or a stand-in)
  std::string model_dir;           // MODEL_DIR
  std::vector<int> shares;         // divisors s: share 1/s, in the order the user gave
  std::vector<std::string> extra;  // passed on to every share's process (--batches, --repeat, …)
};

struct MpsShareProfile {
  ModelProfile profile;  // every share's table; the default SLO from the first share's process
  GpuSpec device;        // the GPU's catalog entry, as the process at the largest share saw it
};

// Each process is `program profile MODEL_DIR --device cuda --shares s --share-process EXTRA…
// -o … --scenario-out …`, its standard output on this one's standard error (what it measured,
// as it goes). Throws Error naming the share whose process failed and its exit status (its own
// message is above it on standard error); QueryError where that status was 2 (it cannot do what
// it was asked: no CUDA in its LibTorch, a bad folder), or for shares that are not 1/1 to 1/64.
MpsShareProfile profile_at_mps_shares(const MpsShareProfileRequest& request);

}  // namespace servescope::cli
