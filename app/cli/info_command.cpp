// `servescope-cli info FILE`: what a file holds, in a few lines (or as JSON).
#include <iostream>

#include "app/cli/cli_context.h"
#include "app/cli/document_summary.h"

namespace servescope::cli {

void add_info_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand("info", "Summarise a ServeScope file");
  auto file = std::make_shared<std::string>();
  cmd->add_option("file", *file, "File to summarise, or \"builtin:NAME\"")->required();
  cmd->callback([&global, &run, file] {
    run = [&global, file] {
      const auto summary = summarize(load_document(*file));
      if (global.json)
        print_json(summary);
      else
        print_summary(report_stream(), summary);
      return kExitOk;
    };
  });
}

}  // namespace servescope::cli
