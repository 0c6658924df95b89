// The options `simulate`, `goodput`, `sweep` and `live scheduler` share: which scenario, system,
// workload, how long, which seed, and the data-plane policies. One definition, so the commands
// cannot drift apart.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "app/cli/option_flags.h"
#include "engine/systems/plan_to_run.h"
#include "engine/systems/scenario_simulation.h"
#include "model/scenario/scenario.h"

namespace servescope::cli {

struct SimulationArgs {
  std::string scenario_file;
  std::string system = "symphony";
  std::vector<std::string> workloads;
  double duration_s = 60;
  double warmup_s = 5;
  std::uint64_t seed = 1;
  std::string plan_file;
  double runtime_jitter = 0;
  std::string runtime = "sample";
  std::string contention = "measured";
  double latency_quantile = kDefaultLatencyQuantile;
  int controller_cores = 0;  // 0: decisions are free
  double controller_us = 0;
  std::string decision_lateness_file;  // a live record whose decisions' lateness the controller draws
  std::string hops_file;               // a live record whose batch and transfer hops the simulator draws
  // Each family's options (batch policy, reservation rules, glet-serving's period, …), made from
  // the registry's schemas; only the chosen system's family's are accepted.
  FamilyFlags<engine::SimulationSpec> family_flags;

  void add_to(CLI::App* cmd);
  // Loads the scenario (a scenario or a project file) and the plan, and fills a spec that holds
  // the plan and stops at SIGINT or SIGTERM (signal_handling.h); throws on bad input.
  engine::SimulationSpec to_spec();
  Scenario load_scenario() const;
  // Where the scenario came from, for a run file to name (its "scenario_file"): the file's
  // absolute path, or the built-in name as given. The GUI opens a run file with it.
  std::string scenario_location() const;

 private:
  CLI::Option* system_option_ = nullptr;
};

// "\r simulating 42 %" on a terminal; nothing when stderr is not a terminal.
class TerminalProgress {
 public:
  explicit TerminalProgress(std::string label);
  ~TerminalProgress();
  void update(double fraction);

 private:
  std::string label_;
  bool tty_;
  int last_percent_ = -1;
};

}  // namespace servescope::cli
