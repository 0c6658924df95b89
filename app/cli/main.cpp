// servescope-cli: the engine from a terminal or a script. Every subcommand has --help, and
// --json switches its output to one machine-readable JSON document on stdout.
#include <iostream>

#include "app/cli/cli_context.h"
#include "model/core/error.h"

using namespace servescope;

int main(int argc, char** argv) {
  CLI::App app{"ServeScope: plan, simulate and watch DNN inference serving on heterogeneous GPU clusters",
               "servescope-cli"};
  app.set_version_flag("--version", std::string("servescope-cli ") + SERVESCOPE_VERSION);
  app.require_subcommand(1);
  cli::GlobalOptions global;
  app.add_flag("--json", global.json, "Print machine-readable JSON instead of text")->configurable(false);
  cli::CommandBody run;
  cli::add_validate_command(app, global, run);
  cli::add_info_command(app, global, run);
  cli::add_import_command(app, global, run);
  cli::add_estimate_command(app, global, run);
  cli::add_demo_command(app, global, run);
  cli::add_simulate_command(app, global, run);
  cli::add_goodput_command(app, global, run);
  cli::add_plan_command(app, global, run);
  cli::add_sweep_command(app, global, run);
  cli::add_fit_interference_command(app, global, run);
  cli::add_export_command(app, global, run);
  cli::add_live_command(app, global, run);
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
    return cli::kExitBadInput;
  }
  try {
    return run ? run() : cli::kExitBadInput;
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
  }
}
