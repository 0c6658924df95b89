// servescope-cli: the engine from a terminal or a script. Every subcommand has --help, and
// --json switches its output to one machine-readable JSON document on stdout.
#include <algorithm>
#include <iostream>

#include "app/cli/cli_context.h"
#include "app/cli/signal_handling.h"
#include "model/core/error.h"
#include "model/core/text.h"

using namespace servescope;

namespace {

// "simulat" → "did you mean 'simulate'?": the first word that is not an option, when it names no
// subcommand but is near one.
void hint_subcommand(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> names;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.starts_with("-")) continue;
    if (std::ranges::find(names, word) != names.end()) return;
    if (const auto near = closest_name(word, names))
      std::cerr << "'" << word << "' is not a command; did you mean '" << *near << "'?\n";
    return;
  }
}

// The command's exit status; errors it throws become messages on stderr.
int run_command(const CLI::App& app, const cli::CommandBody& run) {
  try {
    cli::refuse_empty_values(app);
    return run ? run() : cli::kExitBadInput;
  } catch (const Cancelled& e) {
    // Stopped by SIGINT or SIGTERM, which decides the status; the unwinding removed the
    // temporaries, and what was put in place before is whole.
    std::cerr << "error: " << e.what() << "\n";
    return cli::kExitFailure;
  } catch (const InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return cli::kExitBadInput;
  } catch (const CLI::Error& e) {  // an option value a command checks itself (a malformed list)
    std::cerr << "error: " << e.what() << "\n";
    return cli::kExitBadInput;
  } catch (const QueryError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return cli::kExitFailure;
  } catch (...) {
    std::cerr << "error: an unknown exception\n";
    return cli::kExitFailure;
  }
}

int run_main(int argc, char** argv) {
  CLI::App app{"ServeScope: plan, simulate and watch DNN inference serving on heterogeneous GPU clusters",
               "servescope-cli"};
  app.set_version_flag("--version", std::string("servescope-cli ") + SERVESCOPE_VERSION);
  app.require_subcommand(1);
  // Options of the whole program (--json) may also come after the subcommand's own.
  app.fallthrough();
  cli::GlobalOptions global;
  app.add_flag("--json", global.json, "Print machine-readable JSON instead of text")->configurable(false);
  cli::CommandBody run;
  cli::add_validate_command(app, global, run);
  cli::add_info_command(app, global, run);
  cli::add_import_command(app, global, run);
  cli::add_estimate_command(app, global, run);
  cli::add_profile_command(app, global, run);
  cli::add_calibrate_command(app, global, run);
  cli::add_predict_command(app, global, run);
  cli::add_demo_command(app, global, run);
  cli::add_simulate_command(app, global, run);
  cli::add_goodput_command(app, global, run);
  cli::add_plan_command(app, global, run);
  cli::add_sweep_command(app, global, run);
  cli::add_fit_interference_command(app, global, run);
  cli::add_export_command(app, global, run);
  cli::add_live_command(app, global, run);
  cli::add_gpu_command(app, global, run);
  cli::add_measure_interference_command(app, global, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    hint_subcommand(app, argc, argv);
    return cli::kExitBadInput;
  }
  // The live daemons stop on SIGINT and SIGTERM through handlers of their own, which close the
  // deployment and print its report; a blocked signal would never reach them.
  if (!app.got_subcommand("live")) cli::handle_stop_signals();
  const int status = run_command(app, run);
  // After SIGINT or SIGTERM the status is the signal's, whether the work stopped, failed or
  // finished before it noticed.
  return cli::signal_exit_status().value_or(status);
}

}  // namespace

// What run_main does not turn into a message itself (building the commands, a signal handler
// that cannot be installed) still ends as one, never as std::terminate.
int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "error: an unknown exception\n";
  }
  return cli::kExitFailure;
}
