// `servescope-cli sweep`: PPipe's capacity measure — offer load factors of a plan's throughput
// from the top down, simulate each for the same time with the same seed, and report the highest
// load factor at ≥ 99 % SLO attainment with each GPU type's utilisation there.
#include <iomanip>
#include <iostream>

#include "app/cli/cli_context.h"
#include "app/cli/simulation_args.h"
#include "engine/analysis/load_sweep.h"
#include "model/io/document.h"

namespace servescope::cli {

void add_sweep_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand(
      "sweep", "Highest load factor of a plan's throughput at which SLO attainment stays at or above 99 %");
  struct Args {
    SimulationArgs sim;
    engine::LoadSweepOptions options;
    std::string out;
  };
  auto args = std::make_shared<Args>();
  args->sim.duration_s = 30;
  args->sim.warmup_s = 0.001;  // the artifact leaves out only the first millisecond
  args->sim.add_to(cmd);
  cmd->add_option("--from", args->options.from, "Lowest load factor")
      ->check(CLI::Range(0.001, 100.0))
      ->capture_default_str();
  cmd->add_option("--to", args->options.to, "Highest load factor")
      ->check(CLI::Range(0.001, 100.0))
      ->capture_default_str();
  cmd->add_option("--step", args->options.step, "Step between load factors")
      ->check(CLI::Range(0.001, 100.0))
      ->capture_default_str();
  cmd->add_option("--target", args->options.attainment_target, "SLO attainment a load factor must reach")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--base-rate", args->options.base_rate_rps,
                  "Load factor 1 in req/s (default: the plan's throughput), to offer several systems the same load")
      ->check(CLI::Range(kMinRateRps, kMaxRateRps));
  cmd->add_flag("--stop-at-first", args->options.stop_at_first,
                "Stop at the first load factor from the top that meets the target (PPipe's artifact)");
  cmd->add_option("-o,--out", args->out, "Write the sweep as JSON (atomically; - is standard output)");
  cmd->callback([&global, &run, args] {
    run = [&global, args] {
      check_outputs({args->out});
      const auto scenario = args->sim.load_scenario();
      const auto spec = args->sim.to_spec();
      const auto result = engine::sweep_load(scenario, spec, args->options, [&](const engine::LoadPoint& p) {
        if (global.json) return;
        std::cerr << "  load factor " << std::fixed << std::setprecision(2) << p.load_factor << " ("
                  << std::setprecision(1) << p.rate_rps << " req/s): attainment " << std::setprecision(2)
                  << 100 * p.slo_attainment << " %";
        for (const auto& [type, busy] : p.busy_by_type)
          std::cerr << ", " << type << " " << std::setprecision(1) << 100 * busy << " % busy";
        std::cerr << "\n" << std::defaultfloat;
      });
      const auto json = engine::load_sweep_to_json(result, spec, scenario.name);
      if (!args->out.empty()) save_json_file(args->out, json);
      if (global.json) {
        print_json(json);
      } else {
        report_stream() << std::fixed << std::setprecision(2) << spec.system;
        if (!result.plan_system.empty()) report_stream() << " running the " << result.plan_system << " plan";
        report_stream() << ": max load factor " << result.max_load_factor << " at >= " << std::setprecision(1)
                        << 100 * args->options.attainment_target << " % attainment ("
                        << result.max_load_factor * result.base_rate_rps << " of " << result.base_rate_rps << " req/s)";
        if (const auto* best = result.best())
          for (const auto& [type, busy] : best->busy_by_type)
            report_stream() << "; " << type << " " << 100 * busy << " % busy";
        report_stream() << "\n" << std::defaultfloat;
      }
      return result.max_load_factor > 0 ? kExitOk : kExitFailure;
    };
  });
}

}  // namespace servescope::cli
