// `servescope-cli validate FILE...`: reads each file in full, any kind ServeScope writes (a
// project's kept runs and their timelines too, which the GUI unpacks only when shown), and reports
// the first problem in each, with its place. Exit status 2 when any file is rejected.
#include <iostream>

#include "app/cli/any_file.h"
#include "app/cli/cli_context.h"
#include "model/core/error.h"

namespace servescope::cli {

void add_validate_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand(
      "validate",
      "Check ServeScope files of any kind (catalog, cluster, profiles, scenario, project, run, load sweep, "
      "timeline, plan, goodput search)");
  auto files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("files", *files, "Files to check; \"builtin:NAME\" checks a built-in resource")->required();
  cmd->callback([&global, &run, files] {
    run = [&global, files] {
      nlohmann::json report = nlohmann::json::array();
      bool all_ok = true;
      for (const auto& f : *files) {
        nlohmann::json entry = {{"file", f}};
        try {
          const auto file = read_any_file(f);
          const auto warnings = file.document ? file.document->warnings : std::vector<std::string>{};
          entry["ok"] = true;
          entry["kind"] = file.kind;
          entry["warnings"] = warnings;
          if (!global.json) {
            report_stream() << f << ": ok (" << file.kind << ")\n";
            for (const auto& w : warnings)
              report_stream() << "  warning: " << w << "\n";
          }
        } catch (const InputError& e) {
          all_ok = false;
          entry["ok"] = false;
          entry["error"] = {{"file", e.file()}, {"where", e.where()}, {"reason", e.reason()}};
          if (!global.json) std::cerr << "error: " << e.what() << "\n";
        }
        report.push_back(std::move(entry));
      }
      if (global.json) print_json(report);
      return all_ok ? kExitOk : kExitBadInput;
    };
  });
}

}  // namespace servescope::cli
