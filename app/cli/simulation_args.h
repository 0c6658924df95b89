// The options `simulate` and `goodput` share: which scenario, system, workload, how long, which
// seed, and the data-plane policies. One definition, so the two commands cannot drift apart.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

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
  std::string batch_policy;  // empty: the system's default
  std::string gpu_pick = "lowest-id";
  double timeout_fraction = 0.1;
  int nexus_frontends = 1;
  int subclusters = 1;
  double nexus_epoch_s = 10;
  // Pipeline data planes (reservation, reactive).
  std::string plan_file;
  std::string reservation_mode = "gap-filling";
  std::string wake_rule = "paper";
  double first_look = 0;
  bool local_handoff_free = false;
  bool no_feedback = false;
  double glet_period_s = 20, glet_reorganisation_s = 12.5;
  std::string glet_gpu;
  double runtime_jitter = 0;
  // Symphony's network model (seed 002 Appendix D); a live deployment's real delays belong here.
  double ctrl_delay_us = 0, data_delay_us = 0, response_delay_us = 0;

  void add_to(CLI::App* cmd);
  // Loads the scenario (a scenario or a project file) and the plan, and fills a spec that holds
  // the plan and stops at SIGINT or SIGTERM (signal_handling.h); throws on bad input.
  engine::SimulationSpec to_spec();
  Scenario load_scenario() const;

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
