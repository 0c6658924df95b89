// A multi-DNN application as a DAG of modules under one end-to-end latency SLO: DNN modules
// that run a profiled model, and CPU steps with a fixed cost (Piccolo seed 001 §2, Harpagon
// seed 004 §2, the glet "game" and "traffic" apps seed 003 §6.3). A request completes when
// every sink module has finished.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/core/time.h"
#include "model/profile/model_profile.h"

namespace servescope {

enum class ModuleKind { Dnn, Cpu };

struct AppModule {
  std::string id;
  ModuleKind kind = ModuleKind::Dnn;
  std::string model;     // for DNN modules: the profiled model it runs
  Duration cpu_latency;  // for CPU steps
  // Requests a DNN module receives per application request (objects per frame for a classifier
  // after a detector, Piccolo seed 001 §1.1); 1 for a plain pipeline.
  double rate_scale = 1;
  bool operator==(const AppModule&) const = default;
};

struct AppEdge {
  std::string from;
  std::string to;
  bool operator==(const AppEdge&) const = default;
};

struct Application {
  std::string name;
  std::string description;
  Duration slo;  // end to end
  std::vector<AppModule> modules;
  std::vector<AppEdge> edges;

  const AppModule* find(std::string_view id) const;
  // Position of the module `id` in `modules`, or modules.size() when there is none.
  std::size_t index_of(std::string_view id) const;
  // Module indices in an order where every edge goes forward; nullopt when there is a cycle.
  std::optional<std::vector<std::size_t>> topological_order() const;
  std::vector<std::size_t> sources() const;
  std::vector<std::size_t> sinks() const;
  // Each module's share of the end-to-end SLO (glet digest gap 13): its cost over the costliest
  // source-to-sink path through it, so parallel modules each get the whole SLO and a chain
  // splits it in proportion. `cost` per module (a DNN's latency, a CPU step's). Needs a DAG.
  std::vector<Duration> module_slos(const std::vector<Duration>& cost) const;

  bool operator==(const Application&) const = default;
};

// The SLO each DNN module's model gets when `app` runs under `slo` end to end: module_slos()
// with each DNN costed at batch 32 (or its largest) on the whole `gpu` (glet digest gap 13), as
// (model, SLO) in module order.
std::vector<std::pair<std::string, Duration>> module_model_slos(const Application& app, const ProfileSet& profiles,
                                                                std::string_view gpu, Duration slo);

}  // namespace servescope
