// What a gpu-let plan is (seed 003 §2.2, digest §2.2–§2.3): every GPU split into one or two MPS
// partitions ("glets") from the allowed pairs {100}, {20,80}, {40,60}, {50,50}; each glet hosts
// up to three models time-shared in rounds of one duty cycle, each with its batch size and the
// rate it carries. The planner writes it; the checker and the simulator read it.
#pragma once

#include <string>
#include <vector>

#include "model/core/time.h"

namespace servescope::engine {

enum class GletMode { Saturated, Residue, TimeShared };
std::string_view to_string(GletMode mode);

struct GletAssignment {
  int model = 0;  // index into the planner's models
  int batch = 1;
  double rate_rps = 0;      // what this glet carries of the model's rate
  Duration latency;         // effective latency of one batch (interference, safety included)
  double interference = 1;  // the slowdown factor that latency includes
  bool operator==(const GletAssignment&) const = default;
};

struct Glet {
  int size_percent = 100;
  std::vector<GletAssignment> models;  // empty: free
  GletMode mode = GletMode::Saturated;
  Duration duty_cycle;
  bool free() const { return models.empty(); }
  // Σ batch latencies / duty cycle: 1 means busy all the time.
  double occupancy() const;
  bool operator==(const Glet&) const = default;
};

// The fraction of time `a`'s batches keep its glet busy: its latency over the duty cycle.
double busy_fraction(const Glet& glet, const GletAssignment& a);

struct GletGpu {
  std::vector<Glet> glets;  // one (100 %) or two, sizes summing to 100
  bool used() const;
  bool operator==(const GletGpu&) const = default;
};

struct GletLayout {
  std::vector<GletGpu> gpus;
  int gpus_used() const;
  int total_size_percent() const;  // Σ sizes of non-free glets (the paper's Fig. 14c)
  // Σ rate assigned to `model` over every glet.
  double assigned_rps(int model) const;
  bool operator==(const GletLayout&) const = default;
};

}  // namespace servescope::engine
