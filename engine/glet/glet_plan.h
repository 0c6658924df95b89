// A gpu-let plan (seed 003 §4.2–§4.6): the GPU type it splits, each model's rate and SLO and
// the rate its glets carry, and the layout of glets on the GPUs with what each runs. The type the
// planners, the JSON reader and writer, the deployment and the tests' independent checker share,
// without the planners' algorithms.
#pragma once

#include <string>
#include <vector>

#include "engine/glet/glet_layout.h"
#include "model/core/time.h"

namespace servescope::engine {

struct GletPlannedModel {
  std::string name;
  double rate_rps = 0;  // asked for
  Duration slo;
  double assigned_rps = 0;  // what the layout's glets carry
  bool operator==(const GletPlannedModel&) const = default;
};

struct GletPlan {
  std::string system;                    // glet, glet-noint, sbp, sbp-even, greedy-bestfit, ideal
  std::string gpu;                       // catalog id of the GPUs the layout splits
  std::vector<GletPlannedModel> models;  // GletAssignment::model indexes these
  bool feasible = false;
  GletLayout layout;
  int gpus = 0;                      // GPUs the successful attempt had (SCALING's N)
  int next_gpus = 0;                 // where the next period starts: the GPUs in use, or the previous N on failure
  std::vector<double> unplaced_rps;  // per model: rate no glet carries
  std::string message;               // why it failed, naming the model
};

}  // namespace servescope::engine
