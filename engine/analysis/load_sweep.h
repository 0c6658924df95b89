// PPipe's capacity measure (seed 000 §7.1; digest §6.3–§6.4): offer a fixed fraction of a plan's
// throughput ("load factor") for a fixed simulated time, at every step from the top of the range
// down, and report the highest load factor whose SLO attainment stays at or above the target,
// with each GPU type's temporal utilisation there. The same seed at every point.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/systems/scenario_simulation.h"

namespace servescope::engine {

struct LoadSweepOptions {
  double from = 0.05, to = 1.0, step = 0.05;
  double attainment_target = 0.99;
  // Stop at the first point from the top that meets the target (the artifact's search), instead
  // of measuring the whole curve.
  bool stop_at_first = false;
  // Load factor 1 in req/s; 0: the plan's (or the system's nominal) throughput.
  double base_rate_rps = 0;
  // How many load factors the whole curve measures, `to` down to `from` by `step` (a valid range).
  int points() const;
};

struct LoadPoint {
  double load_factor = 0;
  double rate_rps = 0;
  double slo_attainment = 0;
  double goodput_rps = 0;
  std::uint64_t dropped = 0, late = 0;
  std::map<std::string, double> busy_by_type;
};

struct LoadSweepResult {
  double base_rate_rps = 0;
  std::string plan_system;        // the plan the runs ran (SimulationResult::plan_system); empty: none
  std::vector<LoadPoint> points;  // descending load factor, in the order they ran
  // The highest load factor meeting the target and its point; 0 / none when no point does.
  double max_load_factor = 0;
  const LoadPoint* best() const;
};

// The search itself, over any measurement of a load factor: the unit tests give it a stub.
LoadSweepResult sweep_load_factors(const LoadSweepOptions& options,
                                   const std::function<LoadPoint(double load_factor)>& measure);

// Simulates `spec` (its duration per point) at each load factor.
LoadSweepResult sweep_load(const Scenario& scenario, SimulationSpec spec, const LoadSweepOptions& options,
                           const std::function<void(const LoadPoint&)>& on_point = {});

nlohmann::json load_sweep_to_json(const LoadSweepResult& result, const SimulationSpec& spec,
                                  const std::string& scenario_name);

}  // namespace servescope::engine
