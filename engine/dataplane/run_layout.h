// What a run serves on, as every view of a run names it: the system, its models with their SLOs,
// and its slots (a GPU, a pipeline's vGPU or a glet) with their type, share, physical GPU, duty
// cycle and server. A simulated run (SimulationResult), a live run's description and a timeline
// file (TimelineData) all carry this one type, so the layout is copied whole, never field by field.
// Per-slot vectors are indexed like `gpus`; a vector left shorter means "unknown" for the rest.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/core/time.h"

namespace servescope::engine {

struct RunLayout {
  std::string system;
  std::vector<std::string> models;
  std::vector<Duration> model_slo;          // per model (0 when unknown)
  std::vector<std::string> gpus;            // per slot (a vGPU for pipelines, a glet for gpu-let)
  std::vector<std::string> gpu_types;       // per slot: catalog id ("" when unknown)
  std::vector<std::string> gpu_shares;      // per slot: "1", "1/2", "40%"
  std::vector<std::uint32_t> gpu_physical;  // per slot: index of its physical GPU
  std::vector<Duration> gpu_duty_cycle;     // per slot: a glet's planned duty cycle (0: none)
  std::vector<std::uint32_t> gpu_server;    // per slot: its server (an index of server_names)
  std::vector<std::string> server_names;    // the cluster's servers, whose NICs transfers use

  // How many physical GPUs the slots sit on (one past the largest gpu_physical).
  std::uint32_t physical_gpu_count() const;
  // Each physical GPU named after its first slot, less the slot's own suffix ("/v0", "@50%",
  // "#1"); "gpu N" for one no slot names.
  std::vector<std::string> physical_gpu_names() const;
};

}  // namespace servescope::engine
