#include "app/cli/simulation_args.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "app/cli/signal_handling.h"
#include "engine/glet/glet_plan_json.h"
#include "engine/ppipe/pipeline_plan_json.h"
#include "model/core/error.h"
#include "model/gpu/gpu_catalog.h"
#include "model/io/document.h"
#include "model/io/file_io.h"
#include "model/io/json_cursor.h"

namespace servescope::cli {

void SimulationArgs::add_to(CLI::App* cmd) {
  cmd->add_option("-s,--scenario", scenario_file, "Scenario or project file (or builtin:NAME)")->required();
  std::string systems;
  for (const auto& s : engine::simulation_systems())
    systems += (systems.empty() ? "" : "|") + s;
  system_option_ = cmd->add_option("--system", system, "Serving system: " + systems)->capture_default_str();
  cmd->add_option("-w,--workload", workloads, "Workload to run (repeatable; default: all)");
  cmd->add_option("-d,--duration", duration_s, "Simulated seconds of arrivals")
      ->check(CLI::Range(0.001, 1e6))
      ->capture_default_str();
  cmd->add_option("--warmup", warmup_s, "Seconds at the start left out of the metrics")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--seed", seed, "Random seed")->capture_default_str();
  cmd->add_option("--batch-policy", batch_policy, "greedy|window-drop|window-fcfs (default: the system's)")
      ->check(CLI::IsMember({"greedy", "window-drop", "window-fcfs"}));
  cmd->add_option("--gpu-pick", gpu_pick, "lowest-id|earliest-free")
      ->check(CLI::IsMember({"lowest-id", "earliest-free"}))
      ->capture_default_str();
  cmd->add_option("--timeout-fraction", timeout_fraction, "Timeout system: k as a fraction of the SLO")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_option("--subclusters", subclusters,
                  "Split GPUs and models into this many sub-clusters, each with its own scheduler (Symphony §4.4)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--frontends", nexus_frontends, "Nexus: frontends routing on their own")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--epoch", nexus_epoch_s, "Nexus: seconds between re-plans")
      ->check(CLI::Range(0.01, 1e6))
      ->capture_default_str();
  cmd->add_option("--plan", plan_file,
                  "Pooled-pipeline plan (servescope-cli plan) for the reservation and reactive data planes; "
                  "the system defaults to reservation");
  cmd->add_option("--reservations", reservation_mode,
                  "Reservation tables: gap-filling|horizon (the artifact's busy-until rule)")
      ->check(CLI::IsMember({"horizon", "gap-filling"}))
      ->capture_default_str();
  cmd->add_option("--wake", wake_rule, "When a short queue stops waiting: paper|artifact")
      ->check(CLI::IsMember({"paper", "artifact"}))
      ->capture_default_str();
  cmd->add_option("--first-look", first_look,
                  "Drop a new head at once unless a batch of this fraction of the planned one fits (0: off)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_flag("--local-handoff-free", local_handoff_free,
                "Hand-offs between vGPUs of one server skip the NIC (default: charged, as in PPipe's artifact)");
  cmd->add_option("--runtime-jitter", runtime_jitter,
                  "Each batch runs its profiled time x U[1-j, 1+j] (seeded by --seed); 0: exact profiles")
      ->check(CLI::Range(0.0, 0.95))
      ->capture_default_str();
  cmd->add_option("--gpu", glet_gpu, "glet-serving: the GPU type to split on a mixed cluster");
  cmd->add_option("--period", glet_period_s, "glet-serving: seconds between reschedules")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  cmd->add_option("--reorganisation", glet_reorganisation_s,
                  "glet-serving: seconds a new schedule takes to come up (the old one serves meanwhile)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--ctrl-delay-us", ctrl_delay_us,
                  "Symphony's network model (Appendix D): from dispatch until a batch can start, in µs")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--data-delay-us", data_delay_us, "... and per request of the batch (its inputs), in µs")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--response-delay-us", response_delay_us,
                  "... and for a result to reach its client, in µs (also PPipe's reservation data plane)")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  cmd->add_flag("--no-feedback", no_feedback,
                "Reservation data plane: keep the planned reservations when batches finish early or late");
}

Scenario SimulationArgs::load_scenario() const {
  auto doc = load_document(scenario_file);
  return project_from_document(std::move(doc), scenario_file).scenario;
}

engine::SimulationSpec SimulationArgs::to_spec() {
  engine::SimulationSpec spec;
  spec.system = system;
  spec.stop = stop_token();  // SIGINT and SIGTERM stop the run with Cancelled
  if (!plan_file.empty()) {
    const bool system_given = system_option_ && system_option_->count() > 0;
    const auto json = parse_json_text(read_text_file(plan_file), plan_file);
    try {
      engine::use_plan(spec, json, plan_file, system_given ? std::optional(system) : std::nullopt);
    } catch (const QueryError& e) {
      throw QueryError("--plan " + plan_file + ": " + e.what());
    }
  }
  spec.reservation.mode =
      reservation_mode == "gap-filling" ? engine::ReservationMode::GapFilling : engine::ReservationMode::Horizon;
  spec.reservation.wake =
      wake_rule == "artifact" ? engine::WakeRule::NextBatchInfeasible : engine::WakeRule::LatestFeasible;
  spec.reservation.first_look_min_fraction = first_look;
  spec.reservation.probe.local_handoff_free = local_handoff_free;
  spec.reservation.feedback = !no_feedback;
  spec.runtime_jitter = runtime_jitter;
  spec.glet_serving.period = Duration::from_s(glet_period_s);
  spec.glet_gpu = glet_gpu.empty() ? std::string() : GpuCatalog::builtin().canonical_id(glet_gpu);
  spec.glet_serving.reorganisation = Duration::from_s(glet_reorganisation_s);
  spec.reactive.first_look_min_fraction = first_look;
  spec.workloads = workloads;
  if (!scenario_file.starts_with(kBuiltinPrefix))
    spec.base_dir = std::filesystem::path(scenario_file).parent_path().string();
  spec.duration = Duration::from_s(duration_s);
  spec.warmup = Duration::from_s(warmup_s);
  spec.seed = seed;
  if (batch_policy == "greedy") spec.batch_rule = engine::BatchRule::Greedy;
  if (batch_policy == "window-drop") spec.batch_rule = engine::BatchRule::WindowDrop;
  if (batch_policy == "window-fcfs") spec.batch_rule = engine::BatchRule::WindowFcfs;
  spec.deferred.d_ctrl = Duration::from_us(ctrl_delay_us);
  spec.deferred.d_data = Duration::from_us(data_delay_us);
  spec.deferred.d_resp = Duration::from_us(response_delay_us);
  spec.reservation.response_allowance = Duration::from_us(response_delay_us);
  spec.deferred.gpu_pick = gpu_pick == "earliest-free" ? engine::GpuPick::EarliestFree : engine::GpuPick::LowestId;
  spec.timeout_fraction_of_slo = timeout_fraction;
  spec.nexus.frontends = nexus_frontends;
  spec.subclusters = subclusters;
  spec.nexus.epoch = Duration::from_s(nexus_epoch_s);
  return spec;
}

TerminalProgress::TerminalProgress(std::string label) : label_(std::move(label)), tty_(::isatty(STDERR_FILENO) != 0) {}

TerminalProgress::~TerminalProgress() {
  if (tty_ && last_percent_ >= 0) std::fprintf(stderr, "\r%*s\r", static_cast<int>(label_.size()) + 8, "");
}

void TerminalProgress::update(double fraction) {
  if (!tty_) return;
  const int percent = static_cast<int>(fraction * 100);
  if (percent == last_percent_) return;
  last_percent_ = percent;
  std::fprintf(stderr, "\r%s %3d %%", label_.c_str(), percent);
  std::fflush(stderr);
}

}  // namespace servescope::cli
