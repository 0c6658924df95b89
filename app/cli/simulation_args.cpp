#include "app/cli/simulation_args.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "app/cli/signal_handling.h"
#include "engine/analysis/decision_record.h"
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
  cmd->add_option("--plan", plan_file,
                  "Pooled-pipeline or gpu-let plan (servescope-cli plan) for the data planes that run one; the "
                  "system defaults to the first of them (reservation, glet)");
  cmd->add_option("--runtime", runtime,
                  "sample: each batch's time drawn (seeded by --seed) from its measured distribution, where the "
                  "profile keeps one (servescope-cli profile); exact: every batch at its profile's median")
      ->check(CLI::IsMember({"sample", "exact"}))
      ->capture_default_str();
  cmd->add_option("--contention", contention,
                  "measured: batches on slots of one device slow each other as the profiles measured (profile "
                  "--shares 2 or more); none: each runs as if alone")
      ->check(CLI::IsMember({"measured", "none"}))
      ->capture_default_str();
  cmd->add_option("--latency-quantile", latency_quantile,
                  "Plan and reserve against this quantile of each batch's measured latency, where a profile keeps "
                  "distributions; 0.5: the medians")
      ->check(CLI::Range(0.05, 0.999))
      ->capture_default_str();
  cmd->add_option("--runtime-jitter", runtime_jitter,
                  "Each batch runs its profiled time x U[1-j, 1+j] (seeded by --seed); 0: exact profiles")
      ->check(CLI::Range(0.0, 0.95))
      ->capture_default_str();
  cmd->add_option("--controller-cores", controller_cores,
                  "Charge every event the data plane handles to a controller of this many cores (0: decisions are "
                  "free, as in the papers' simulators)")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->add_option("--controller-us", controller_us,
                  "The controller's CPU time per event in microseconds (0 with --controller-cores: only measure the "
                  "data plane's own time per event)")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--decision-lateness", decision_lateness_file,
                  "Each timer and batch end reaches the data plane as late as a live scheduler's decisions were, "
                  "drawn per event (seeded by --seed): FILE is its record (live scheduler --record), or that "
                  "record's scheduler.dispatch_overhead_us block")
      ->type_name("FILE");
  cmd->add_option("--hops", hops_file,
                  "No batch starts sooner after it was dispatched, and no feature map between servers arrives "
                  "sooner after its link's time, than a live scheduler's did, drawn per batch and transfer (seeded "
                  "by --seed): FILE is its record (live scheduler --record), or that record's scheduler block")
      ->type_name("FILE");
  family_flags.add_to(cmd, simulation_option_groups());
}

Scenario SimulationArgs::load_scenario() const {
  auto doc = load_document(scenario_file);
  return project_from_document(std::move(doc), scenario_file).scenario;
}

std::string SimulationArgs::scenario_location() const {
  if (scenario_file.starts_with(kBuiltinPrefix)) return scenario_file;
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(scenario_file, ec);
  return ec ? scenario_file : absolute.lexically_normal().string();
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
  spec.runtime_jitter = runtime_jitter;
  spec.exact_runtime = runtime == "exact";
  spec.ignore_contention = contention == "none";
  spec.latency_quantile = latency_quantile;
  if (controller_cores > 0)
    spec.controller = engine::ControllerCost{controller_cores, Duration::from_us(controller_us)};
  else if (controller_us > 0)
    throw QueryError("--controller-us needs --controller-cores: how many cores share the controller's work");
  spec.workloads = workloads;
  if (!scenario_file.starts_with(kBuiltinPrefix))
    spec.base_dir = std::filesystem::path(scenario_file).parent_path().string();
  spec.duration = Duration::from_s(duration_s);
  spec.warmup = Duration::from_s(warmup_s);
  spec.seed = seed;
  if (!decision_lateness_file.empty()) {
    const auto doc = parse_json_text(read_text_file(decision_lateness_file), decision_lateness_file);
    auto lateness = engine::recorded_decision_lateness(doc, decision_lateness_file);
    if (!lateness)
      throw QueryError("--decision-lateness " + decision_lateness_file +
                       ": keeps no distribution of a live scheduler's decisions (scheduler.dispatch_overhead_us "
                       "with quantiles_us; recorded by live scheduler --record)");
    engine::draw_decision_lateness(spec, std::move(*lateness));
  }
  if (!hops_file.empty()) {
    const auto doc = parse_json_text(read_text_file(hops_file), hops_file);
    auto hops = engine::recorded_live_hops(doc, hops_file);
    if (!hops.any())
      throw QueryError("--hops " + hops_file +
                       ": keeps no distribution of a live scheduler's hops (scheduler.batch_hop_us or "
                       "scheduler.transfer_overhead_us with quantiles_us; recorded by live scheduler --record)");
    engine::draw_live_hops(spec, std::move(hops));
  }
  family_flags.apply(spec, engine::data_plane_family(spec.system), spec.system);
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
