// `servescope-cli simulate`: one run of a scenario's workload through one serving system, with
// a summary on the terminal and the full results (and optionally the timeline) as JSON.
#include <iomanip>
#include <iostream>
#include <optional>

#include "app/cli/cli_context.h"
#include "app/cli/run_files.h"
#include "app/cli/signal_handling.h"
#include "app/cli/simulation_args.h"
#include "engine/analysis/goodput_search.h"
#include "engine/serving/run_result_json.h"
#include "engine/symphony/autoscaler.h"
#include "engine/timeline/timeline_data.h"
#include "model/core/error.h"
#include "model/io/document.h"
#include "model/io/file_io.h"

namespace servescope::cli {
namespace {

void print_run(std::ostream& out, const engine::SimulationResult& r) {
  const auto s = engine::summarize_run(r);
  out << std::fixed << std::setprecision(1);
  out << r.system << ": " << r.gpus.size() << " GPUs, " << r.models.size() << " models, offered " << r.offered_rate_rps
      << " req/s (" << std::setprecision(2)
      << (r.nominal_capacity_rps > 0 ? r.offered_rate_rps / r.nominal_capacity_rps : 0.0) << "x nominal capacity "
      << std::setprecision(1) << r.nominal_capacity_rps << ")\n";
  // The warm-up is said, so a run here and the GUI's (which warms up min(2 s, a fifth)) are read
  // alike.
  out << "  requests    " << s.arrivals << " measured after a " << r.warmup.to_s() << " s warm-up: " << s.on_time
      << " on time, " << s.late << " late, " << s.dropped << " dropped, " << s.unfinished << " unfinished\n";
  out << std::setprecision(2) << "  SLO         " << 100 * s.slo_attainment << " % attained; goodput "
      << std::setprecision(1) << s.goodput_rps << " req/s; worst model misses " << std::setprecision(2)
      << 100 * s.worst_model_miss << " %\n";
  out << "  latency     p50 " << s.p50.to_ms() << " ms, p99 " << s.p99.to_ms() << " ms, max " << s.max.to_ms()
      << " ms\n";
  out << "  batches     mean " << s.mean_batch << ", median " << s.median_batch << "\n";
  out << "  GPUs        mean busy " << 100 * s.mean_gpu_busy << " %, " << s.gpus_used << " of " << r.gpus.size()
      << " used (> 1 % busy)\n";
  const auto advice = engine::autoscaling_advice(*r.metrics, static_cast<int>(r.gpus.size()));
  if (!advice.empty()) {
    const auto& last = advice.back();
    out << "  autoscaling " << advice.size() << " window(s); the last advises ";
    if (last.add > 0)
      out << "adding " << last.add << " GPUs (bad rate " << std::setprecision(2) << 100 * last.bad_rate << " %)\n";
    else if (last.release > 0)
      out << "releasing " << last.release << " GPUs (idle " << std::setprecision(2) << 100 * last.idle_fraction
          << " %)\n";
    else
      out << "no change\n";
  }
  for (const auto& g : r.reorganisations)
    out << std::setprecision(1) << "  schedule    at " << g.active.to_s() << " s (decided at " << g.decided.to_s()
        << " s): " << g.how << ", " << g.gpus << " GPUs\n";
  if (r.controller) {
    const auto& c = *r.controller;
    out << std::setprecision(0) << "  controller  " << c.events << " events, " << c.handler_ns_per_event()
        << " ns of the data plane's own time each; waits mean " << std::setprecision(3)
        << (c.events ? c.total_wait.to_ms() / static_cast<double>(c.events) : 0.0) << " ms, max " << c.max_wait.to_ms()
        << " ms\n";
  }
  out << std::setprecision(0) << "  simulator   " << r.sim.arrivals << " requests in " << std::setprecision(2)
      << r.wall_seconds << " s (" << std::setprecision(0)
      << (r.wall_seconds > 0 ? static_cast<double>(r.sim.arrivals) / r.wall_seconds : 0.0) << " req/s)\n";
  out << std::defaultfloat;
}

}  // namespace

void add_simulate_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand("simulate", "Simulate a scenario's workload through one serving system");
  struct Args {
    SimulationArgs sim;
    double rate = 0, load_factor = 0;
    std::string out, timeline, requests, execution_profiles;
    bool packed = false;
  };
  auto args = std::make_shared<Args>();
  args->sim.add_to(cmd);
  auto* rate = cmd->add_option("--rate", args->rate, "Total offered rate, req/s (scales the workloads)")
                   ->check(CLI::Range(kMinRateRps, kMaxRateRps));
  cmd->add_option("--load-factor", args->load_factor, "Offered rate as a multiple of the nominal capacity")
      ->check(CLI::Range(1e-6, 1e3))
      ->excludes(rate);
  cmd->add_option("-o,--out", args->out, "Write the results as JSON (atomically; - is standard output)");
  auto* timeline = cmd->add_option("--timeline", args->timeline, "Write every executed batch as a timeline JSON file");
  cmd->add_flag("--packed-timeline", args->packed,
                "Write the timeline's rows packed (columns of varints, zlib, base64: a tenth of the size; "
                "docs/formats.md \"Packed tables\")")
      ->needs(timeline);
  cmd->add_option("--execution-profiles", args->execution_profiles,
                  "Run each batch by these profiles (a profiles, scenario or project file, e.g. calibrate's) while "
                  "the data plane plans and reserves with the scenario's, as a live scheduler started with it did");
  cmd->add_option("--requests", args->requests,
                  "Stream per-request records (arrival, dispatch, runs, transfers, outcome) to a CSV file");
  cmd->callback([&global, &run, args, cmd] {
    run = [&global, args, cmd] {
      check_outputs({args->out, args->timeline, args->requests});
      const auto scenario = args->sim.load_scenario();
      auto spec = args->sim.to_spec();
      if (cmd->count("--rate")) spec.rate_rps = args->rate;
      if (cmd->count("--load-factor")) spec.load_factor = args->load_factor;
      if (!args->execution_profiles.empty()) {
        spec.execution_profiles = std::make_shared<const ProfileSet>(profiles_in(args->execution_profiles));
        spec.execution_profiles_source = args->execution_profiles;
      }
      spec.timeline = !args->timeline.empty();
      std::optional<OutputFile> request_log;
      if (!args->requests.empty()) spec.request_log = &request_log.emplace(args->requests).stream();
      engine::SimulationResult result;
      {
        TerminalProgress progress("simulating");
        result = engine::simulate(scenario, spec, [&](double f) { progress.update(f); });
      }
      // Companions first, the run file last (run_files.h); a stop between them leaves a set whose
      // ids tell it apart, and no temporaries.
      RunFiles files(args->out);
      if (request_log) {
        throw_if_stopped();
        request_log->commit();
        files.add("requests", args->requests, request_log->bytes_written());
      }
      if (!args->timeline.empty()) {
        throw_if_stopped();
        files.write_json("timeline", args->timeline,
                         engine::to_json(engine::timeline_of(result), args->packed ? engine::TimelineEncoding::Packed
                                                                                   : engine::TimelineEncoding::Rows));
      }
      auto json = engine::run_result_to_json(result, scenario.name);
      json["scenario_file"] = args->sim.scenario_location();
      files.describe(json);
      if (!args->out.empty()) {
        throw_if_stopped();
        save_json_file(args->out, json);
      }
      if (global.json)
        print_json(json);
      else
        print_run(report_stream(), result);
      return kExitOk;
    };
  });
}

void add_goodput_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand("goodput",
                                 "Find the highest rate every model's p99 stays within its SLO, "
                                 "and the highest rate at 99 % SLO attainment");
  struct Args {
    SimulationArgs sim;
    engine::GoodputOptions options;
    std::string out;
  };
  auto args = std::make_shared<Args>();
  args->sim.duration_s = 30;
  args->sim.add_to(cmd);
  cmd->add_option("--precision", args->options.precision, "Relative width at which the bisection stops")
      ->check(CLI::Range(1e-4, 0.5))
      ->capture_default_str();
  cmd->add_option("-o,--out", args->out, "Write the search as JSON (atomically; - is standard output)");
  cmd->callback([&global, &run, args] {
    run = [&global, args] {
      check_outputs({args->out});
      const auto scenario = args->sim.load_scenario();
      const auto spec = args->sim.to_spec();  // SIGINT and SIGTERM stop it (signal_handling.h)
      const auto result = engine::search_goodput(scenario, spec, args->options, [&](const engine::GoodputProbe& p) {
        if (!global.json)
          std::cerr << "  probe " << std::fixed << std::setprecision(1) << p.rate_rps << " req/s: attainment "
                    << std::setprecision(3) << 100 * p.slo_attainment << " %, worst model misses "
                    << 100 * p.worst_model_miss << " %\n"
                    << std::defaultfloat;
      });
      nlohmann::json probes = nlohmann::json::array();
      for (const auto& p : result.probes)
        probes.push_back({{"rate_rps", p.rate_rps},
                          {"slo_attainment", p.slo_attainment},
                          {"worst_model_miss", p.worst_model_miss},
                          {"goodput_rps", p.goodput_rps}});
      const nlohmann::json json = {{"schema_version", 1},
                                   {"kind", "goodput-search"},
                                   {"system", spec.system},
                                   {"scenario", scenario.name},
                                   {"goodput_rps", result.goodput_rps},
                                   {"max_rate_at_99_attainment_rps", result.max_rate_at_target_rps},
                                   {"nominal_capacity_rps", result.nominal_capacity_rps},
                                   {"probes", probes}};
      if (!args->out.empty()) save_json_file(args->out, json);
      if (global.json) {
        print_json(json);
      } else {
        report_stream() << std::fixed << std::setprecision(1) << spec.system << ": goodput " << result.goodput_rps
                        << " req/s (every model's p99 within its SLO); " << result.max_rate_at_target_rps
                        << " req/s at 99 % attainment; nominal capacity " << result.nominal_capacity_rps << " req/s\n"
                        << std::defaultfloat;
      }
      return kExitOk;
    };
  });
}

}  // namespace servescope::cli
