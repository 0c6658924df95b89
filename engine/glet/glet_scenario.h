// What gpu-let's planners need from a scenario (seed 003 §2.1): the GPU type the cluster's GPUs
// are split on, how many there are (SCALING's limit), each targeted model with its profile, rate
// and SLO, the models' L2/DRAM utilisation and the interference model for that GPU type.
#pragma once

#include <string>
#include <vector>

#include "engine/glet/glet_baselines.h"
#include "model/scenario/scenario.h"

namespace servescope::engine {

struct GletInput {
  std::vector<GletModel> models;  // pointers into the scenario
  GletLatencyOptions latency;     // gpu and the interference model (when the profiles have one)
  int gpu_limit = 0;              // GPUs of that type in the cluster
};

// `gpu` picks the type on a mixed cluster (empty: the cluster must have one type). Throws
// QueryError naming what is missing (a type, an SLO, application targets).
GletInput glet_input(const Scenario& scenario, const std::vector<std::string>& workloads, const std::string& gpu = {});

}  // namespace servescope::engine
