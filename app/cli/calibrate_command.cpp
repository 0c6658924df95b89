// `servescope-cli calibrate RUN.json -s SCENARIO [--plan PLAN] -o profiles.json`: fits the
// scenario's profiles to a recorded run of it (issue 46; engine/analysis/calibration.h): each
// entry's distribution, and each device type's contention between slots, from every batch's
// measured time and what ran beside it. Says how far each entry moved; `--scenario-out` writes
// the scenario with the calibrated profiles in place, for `simulate` to predict the run again.
#include "app/cli/cli_context.h"
#include "app/cli/profiles_output.h"
#include "app/cli/simulation_args.h"
#include "engine/analysis/calibration_report.h"
#include "engine/analysis/run_calibration.h"
#include "engine/analysis/saved_artifacts.h"
#include "model/io/document.h"
#include "model/io/file_io.h"
#include "model/io/json_text.h"
#include "model/scenario/scenario_editing.h"

namespace servescope::cli {

void add_calibrate_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand(
      "calibrate",
      "Fit a scenario's profiles to a recorded run of it (live scheduler --record): each entry's distribution and "
      "the contention between slots of a device, from every batch's measured time");
  struct Args {
    std::string run_file, out, scenario_out;
    int skip_first = 3, min_runs = 8;
    SimulationArgs sim;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("RUN", args->run_file, "The run (a run file with its timeline, or a timeline file)")->required();
  args->sim.add_to(cmd);
  cmd->add_option("-o,--out", args->out, "Calibrated profiles to write (atomically; standard output when absent)");
  cmd->add_option("--scenario-out", args->scenario_out,
                  "Also write the scenario with the calibrated profiles in place of its own");
  cmd->add_option("--skip-first", args->skip_first, "Leave out each slot's first batches (kernels loading)")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  cmd->add_option("--min-runs", args->min_runs, "Batches an entry needs for a distribution of its own")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->callback([&global, &run, args] {
    run = [&global, args] {
      check_outputs({args->out, args->scenario_out});
      const auto body = parse_json_text(read_text_file(args->run_file), args->run_file);
      const auto timeline = engine::load_timeline(args->run_file);
      engine::CalibrationOptions options;
      options.skip_first = args->skip_first;
      options.min_runs = args->min_runs;
      options.skip_before = engine::run_warmup(body, args->run_file);
      const auto scenario = args->sim.load_scenario();
      const auto calibration = engine::calibrate_run(scenario, args->sim.to_spec(), timeline, options);
      auto set = calibration.profiles;
      set.name = "calibrated from " + args->run_file;
      set.source = "servescope-cli calibrate " + args->run_file;
      if (!args->scenario_out.empty())
        save_scenario(args->scenario_out, with_replaced_profiles(scenario, calibration.profiles));
      if (global.json) {
        // Standard output holds the report alone; the profiles go to -o.
        auto json = engine::calibration_to_json(calibration);
        if (!args->out.empty()) {
          save_profiles(args->out, set);
          json["written"] = args->out;
        }
        if (!args->scenario_out.empty()) json["scenario_written"] = args->scenario_out;
        print_json(json);
        return kExitOk;
      }
      engine::write_calibration_report(report_stream(), calibration, args->run_file);
      if (!args->scenario_out.empty()) report_stream() << "wrote " << args->scenario_out << "\n";
      return write_profiles(global, args->out, set, {});
    };
  });
}

}  // namespace servescope::cli
