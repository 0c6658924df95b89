// Calibrating profiles from a live run (issue 46): a profile measured slot by slot, on a quiet
// machine, is not what a deployment sees. The run's record holds every batch's measured time and,
// through the slots' layout, what ran beside it on its device. From them:
//  - per device type, share and batch size, the contention between slots: the median batch that
//    ran beside another slot over the median batch that ran alone (both against the profile, so
//    batches of different entries pool), where enough of each ran; else the profile's is kept;
//  - per entry (model, blocks, share, batch size) the run measured often enough, its distribution:
//    each batch's time with its contention taken out, in proportion to how long others ran
//    beside it; each level's change carried to the entry's blocks in proportion, to the batch
//    sizes the run did not measure from the nearest one it did, and fitted monotone again;
//  - per device type, how long its slow and fast spells last: batches that ran one after another
//    on a slot and drew alike from their entries' distributions (spell_fit.h).
// `simulate` on the calibrated profiles then re-predicts the run it was fitted on.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/timeline/timeline_data.h"
#include "model/profile/model_profile.h"

namespace servescope::engine {

struct CalibrationOptions {
  int skip_first = 3;  // each slot's first batches, which load kernels and warm caches
  Time skip_before;    // batches that started before this (the run's warm-up)
  int min_runs = 8;    // an entry needs this many batches for a distribution of its own
  // Batches beside others for at most / at least this share of their time count as alone /
  // beside when contention is fitted.
  double alone_below = 0.1, beside_above = 0.9;
  int min_group = 5;  // batches alone and beside needed to fit contention
};

// One profile entry the run measured.
struct EntryChange {
  std::string model;
  std::optional<BlockRange> blocks;  // a pipeline stage's; the whole model when absent
  std::string gpu;
  GpuShare share;
  int batch = 1;
  int runs = 0;        // batches behind it
  bool refit = false;  // false: fewer than min_runs batches; the nearest refit entry's change carried
  Duration before_p50, after_p50, before_p99, after_p99;
};

// The contention between two slots of a device for one share and batch size.
struct ContentionChange {
  std::string gpu;
  GpuShare share;
  int batch = 1;
  double before = 1, after = 1;
  int alone = 0, beside = 0;  // batches that ran alone, and beside another slot
  bool fitted = false;        // false: too few of one kind to fit
  // Not fitted: the batch size whose fitted change it carries (0: none of its device type and
  // share was fitted, the profile's kept).
  int carried_from = 0;
};

// How long a device type's slow and fast spells last (spell_fit.h).
struct SpellChange {
  std::string gpu;
  Duration before, after;
  int pairs = 0;    // consecutive batches of a slot it was fitted on
  double lag1 = 0;  // their scores' correlation
};

struct Calibration {
  ProfileSet profiles;  // the calibrated models, and each measured device type's contention
  std::vector<EntryChange> entries;
  std::vector<ContentionChange> contention;
  std::vector<SpellChange> spells;
  std::size_t batches_used = 0, batches_skipped = 0;
  std::vector<std::string> notes;  // what the run could not calibrate, and why
};

// `stage_blocks[slot]` maps a model (by its index in `run.models`) to the blocks that slot runs
// of it, a pipeline stage; a model not there runs whole. Throws QueryError when no batch of the
// run can be matched to a profile.
Calibration calibrate(const ProfileSet& profiles, const TimelineData& run,
                      const std::vector<std::map<std::uint32_t, BlockRange>>& stage_blocks,
                      const CalibrationOptions& options = {});

}  // namespace servescope::engine
