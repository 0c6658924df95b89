// Contention between the slots of one device (issue 46): slots that run batches at the same time
// on one GPU (MPS partitions) or one CPU (groups of its cores) slow each other, through the memory
// system and what the partitioning does not isolate. `profile` measures it by running k slots of a
// share at once, as a plan places them, and records each slot's slowdown over its time alone; the
// simulator stretches every batch by it for as long as the others run beside it.
//
// One model per device type, whatever the model measured on it: gpu-let's interference model
// (seed 003 §4.7) predicts a pair's slowdown from their L2 and DRAM use; this one is the measured
// slowdown itself, for the shares, batch sizes and slot counts that were run.
#pragma once

#include <string>
#include <vector>

#include "model/core/time.h"
#include "model/profile/gpu_share.h"

namespace servescope {

struct ContentionSample {
  GpuShare share;       // the share of each slot that ran
  int batch = 1;        // the batch size each ran
  int slots = 2;        // how many ran at once, this one included (≥ 2)
  double slowdown = 1;  // the median batch time beside them over the median alone (≥ 1)
  int runs = 0;         // timed runs behind it
  bool operator==(const ContentionSample&) const = default;
};

struct ContentionModel {
  std::string gpu;  // the device type (catalog id)
  std::vector<ContentionSample> samples;
  std::string source;
  std::string origin;
  // How long the device's slow and fast spells last (engine/dataplane/spell_draws.h): batches
  // on one slot that start within about this much of each other are drawn alike from their
  // distributions; zero: each on its own. `calibrate` fits it from a live run's batches.
  Duration spell{};

  // A batch of `batch` on a slot of `share` while `slots` slots of the device run (itself
  // included): 1 alone; otherwise from the samples of that share (of the nearest measured share
  // where it was not measured), linear between measured batch sizes and slot counts and held
  // beyond them, with one slot alone at 1. Samples of one (share, batch, slots) from several
  // measurements count by their runs. Never below 1: a slot is not faster for company. 1 for a
  // model without samples.
  double slowdown(GpuShare share, int batch, int slots) const;
  // Adds another measurement of the same device type (a profile of another model); the longer
  // spell of the two.
  void merge(const ContentionModel& other);

  bool operator==(const ContentionModel&) const = default;
};

}  // namespace servescope
