// How long a model takes, in the three shapes the papers publish, behind one query: latency
// of model m on GPU type k at share s for batch b over blocks [i, j).
//  - blocks: a DNN pre-partitioned into N blocks, a batch curve per block for each GPU type and
//    MPS share, plus the bytes per sample crossing each block boundary (PPipe, seed 000 §2.2);
//  - linear: α·b + β per GPU type (Symphony seed 002 §1.2, Nexus, Clockwork);
//  - table: a batch curve per GPU type and share, e.g. glet partitions of 20–100 % (seed 003
//    §4.1) or a whole-GPU Nexus profile.
// A query the data cannot answer throws QueryError; nothing is extrapolated silently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/core/time.h"
#include "model/profile/batch_curve.h"
#include "model/profile/contention_model.h"
#include "model/profile/gpu_share.h"
#include "model/profile/latency_distribution.h"

namespace servescope {

enum class ProfileForm { Blocks, Linear, Table };
std::string_view to_string(ProfileForm form);
std::optional<ProfileForm> parse_profile_form(std::string_view text);

struct BlockRange {
  int begin = 0;  // first block
  int end = 0;    // one past the last block
  bool operator==(const BlockRange&) const = default;
};

struct LatencyQuery {
  std::string_view gpu;  // canonical catalog id
  GpuShare share = GpuShare::whole();
  int batch = 1;
  std::optional<BlockRange> blocks;  // whole model when absent
};

struct BlockTable {
  std::string gpu;
  GpuShare share;
  std::vector<BatchCurve> blocks;  // one per block, all over the same batch sizes
  // A measured profile's spread (servescope-cli profile): per block, the 99th percentile over
  // the same batch sizes, while `blocks` holds the median. Empty when not measured; planners
  // read the median only.
  std::vector<BatchCurve> p99;
  // The whole measured distribution of each entry, [block][batch index] over the same batch
  // sizes, its median equal to `blocks`'s. Empty when not measured (a published profile).
  std::vector<std::vector<LatencyDistribution>> distributions;
  bool operator==(const BlockTable&) const = default;
};

struct LinearFit {
  std::string gpu;
  GpuShare share;
  Duration alpha;     // per item
  Duration beta;      // per invocation
  int max_batch = 0;  // 0: no stated limit (queries cap at kMaxBatchSize)
  bool operator==(const LinearFit&) const = default;
};

struct BatchTable {
  std::string gpu;
  GpuShare share;
  BatchCurve curve;
  bool operator==(const BatchTable&) const = default;
};

inline constexpr int kMaxBatchSize = 4096;
inline constexpr int kMaxBlocks = 1024;

struct ModelProfile {
  std::string name;
  std::string description;
  ProfileForm form = ProfileForm::Linear;
  std::optional<Duration> default_slo;
  Duration preprocess;   // CPU time before inference, per request (0 when unknown)
  Duration postprocess;  // CPU time after inference, per request

  // Form "blocks".
  int block_count = 1;
  std::vector<std::int64_t> boundary_bytes;  // [j-1] = bytes per sample crossing cut j, 0<j<N
  std::vector<BlockTable> block_tables;
  // Form "linear".
  std::vector<LinearFit> linear_fits;
  // Form "table".
  std::vector<BatchTable> batch_tables;

  // Where the profile came from when it was pulled in by an include ("builtin:zoo/…" or a
  // path); empty for profiles written inline. Saving writes only inline profiles.
  std::string origin;

  Duration latency(const LatencyQuery& q) const;
  // The query's latency at every level of kDistributionLevels, where the profile keeps measured
  // distributions for it (a blocks table with them): each block's quantile at the batch
  // (linear between measured batch sizes), summed over the blocks at the same level, as if one
  // batch's blocks were slow or fast together. nullopt where there are none; throws as latency().
  std::optional<std::vector<Duration>> latency_levels(const LatencyQuery& q) const;
  // The (GPU type, share) pairs this profile can answer for.
  std::vector<std::pair<std::string, GpuShare>> configurations() const;
  // Smallest and largest batch answerable on (gpu, share); 0 when the pair is not profiled.
  int min_batch(std::string_view gpu, GpuShare share) const;
  int max_batch(std::string_view gpu, GpuShare share) const;
  // The batch sizes measured on (gpu, share), ascending; empty for a linear fit (no points) or an
  // unprofiled pair.
  std::vector<int> profiled_batches(std::string_view gpu, GpuShare share) const;
  int blocks() const { return form == ProfileForm::Blocks ? block_count : 1; }
  // Bytes per sample crossing the cut before block j (0 < j < blocks()).
  std::int64_t cut_bytes(int j) const;

  bool operator==(const ModelProfile&) const = default;
};

struct UtilisationSample {
  int batch = 1;
  double sm_util = 0;  // fractions 0..1, measured alone on the whole GPU
  double l2_util = 0;
  double dram_util = 0;
  bool operator==(const UtilisationSample&) const = default;
};

// Nsight-style utilisation of a model, the input to glet's interference model (seed 003 §4.7).
struct UtilisationProfile {
  std::string model;
  std::string gpu;
  std::vector<UtilisationSample> samples;  // increasing batch
  std::string origin;
  bool operator==(const UtilisationProfile&) const = default;
};

// slowdown(m1 | m2) = c1·L2_m1 + c2·L2_m2 + c3·DRAM_m1 + c4·DRAM_m2 + c5 (seed 003 §4.7).
struct InterferenceModel {
  std::string gpu;
  double l2_self = 0, l2_other = 0, dram_self = 0, dram_other = 0, constant = 1;
  std::string source;
  std::string origin;
  bool operator==(const InterferenceModel&) const = default;
};

struct ProfileSet {
  std::string name;
  std::string source;
  std::vector<ModelProfile> models;
  std::vector<UtilisationProfile> utilisation;
  std::vector<InterferenceModel> interference;
  std::vector<ContentionModel> contention;  // measured by `profile`, per device type

  const ModelProfile* find(std::string_view model) const;
  const ModelProfile& get(std::string_view model) const;  // throws QueryError
  Duration latency(std::string_view model, const LatencyQuery& q) const;
  // The contention between slots of `gpu`: every entry for that device type joined (one per
  // profiled model, each file keeping its own); no samples where none was measured.
  ContentionModel contention_on(std::string_view gpu) const;
  // Appends `other`, tagging every entry with `origin`. Throws QueryError on a model defined
  // twice: which one wins would be a guess.
  void merge(ProfileSet other, const std::string& origin);

  bool operator==(const ProfileSet&) const = default;
};

// Time to push `bytes` through a link of `gbps` gigabits per second.
Duration transfer_time(std::int64_t bytes, double gbps);

}  // namespace servescope
