// `servescope-cli info FILE`: what a file holds, in a few lines (or as JSON).
#include <iostream>

#include "app/cli/any_file.h"
#include "app/cli/cli_context.h"
#include "app/cli/document_summary.h"

namespace servescope::cli {

void add_info_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand("info", "Summarise a ServeScope file");
  auto file = std::make_shared<std::string>();
  cmd->add_option("file", *file, "File to summarise, or \"builtin:NAME\"")->required();
  cmd->callback([&global, &run, file] {
    run = [&global, file] {
      const auto read = read_any_file(*file);
      const auto summary = read.document ? summarize(*read.document) : read.engine_summary;
      if (global.json)
        print_json(summary);
      else
        print_summary(report_stream(), summary);
      return kExitOk;
    };
  });
}

}  // namespace servescope::cli
