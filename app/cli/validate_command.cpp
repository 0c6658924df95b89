// `servescope-cli validate FILE...`: loads each file exactly as the GUI would and reports the
// first problem in each, with its place. Exit status 2 when any file is rejected.
#include <iostream>

#include "app/cli/cli_context.h"
#include "engine/analysis/saved_artifacts.h"
#include "model/core/error.h"
#include "model/io/document.h"

namespace servescope::cli {

void add_validate_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand("validate", "Check ServeScope files (catalog, cluster, profiles, scenario, project)");
  auto files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("files", *files, "Files to check; \"builtin:NAME\" checks a built-in resource")->required();
  cmd->callback([&global, &run, files] {
    run = [&global, files] {
      nlohmann::json report = nlohmann::json::array();
      bool all_ok = true;
      for (const auto& f : *files) {
        nlohmann::json entry = {{"file", f}};
        try {
          const auto doc = load_document(f);
          if (const auto* project = std::get_if<Project>(&doc.content)) engine::check_saved_artifacts(*project, f);
          entry["ok"] = true;
          entry["kind"] = std::string(to_string(doc.kind));
          entry["warnings"] = doc.warnings;
          if (!global.json) {
            report_stream() << f << ": ok (" << to_string(doc.kind) << ")\n";
            for (const auto& w : doc.warnings)
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
