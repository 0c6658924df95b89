// `servescope-cli export chrome-trace RUN.json --out trace.json`: a simulated run's timeline (the
// file `simulate --timeline` writes, or a run file that embeds one) as Chrome trace-event JSON
// for Perfetto and chrome://tracing; `export metrics-csv RUN.json --out metrics.csv`: the run's
// chart curves as CSV. The GUI's File → Export, headless.
#include <iostream>

#include "app/cli/cli_context.h"
#include "engine/analysis/run_csv.h"
#include "engine/timeline/chrome_trace.h"
#include "engine/timeline/timeline_data.h"
#include "model/core/error.h"
#include "model/io/file_io.h"

namespace servescope::cli {

void add_export_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand("export", "Convert results for other tools");
  cmd->require_subcommand(1);
  auto* trace = cmd->add_subcommand(
      "chrome-trace", "A run's timeline as Chrome trace-event JSON (opens in Perfetto and chrome://tracing)");
  struct Args {
    std::string timeline, out;
  };
  auto args = std::make_shared<Args>();
  trace->add_option("timeline", args->timeline, "Timeline file (simulate --timeline) or a run file with one")
      ->required();
  trace->add_option("-o,--out", args->out, "Trace file to write (atomically; - is standard output)")->required();
  trace->callback([&global, &run, args] {
    run = [&global, args] {
      check_outputs({args->out});
      const auto timeline = engine::load_timeline(args->timeline);
      OutputFile writer(args->out);
      engine::write_chrome_trace(writer.stream(), timeline);
      writer.commit();
      if (global.json)
        print_json({{"out", args->out},
                    {"batches", timeline.spans.size()},
                    {"transfers", timeline.transfers.size()},
                    {"queue_samples", timeline.queue.size()}});
      else
        report_stream() << "wrote " << args->out << ": " << timeline.spans.size() << " batches on "
                        << timeline.gpus.size() << " slots, " << timeline.transfers.size() << " transfers, "
                        << timeline.queue.size() << " queue samples\n";
      return kExitOk;
    };
  });

  auto* csv = cmd->add_subcommand("metrics-csv",
                                  "A run's chart curves (attainment, goodput, busy time, GPUs, batch "
                                  "sizes, latency CDF) as one CSV: chart,series,x,y");
  auto csv_args = std::make_shared<Args>();
  csv->add_option("run", csv_args->timeline, "Run file (simulate --out)")->required();
  csv->add_option("-o,--out", csv_args->out, "CSV file to write (atomically; - is standard output)")->required();
  csv->callback([&global, &run, csv_args] {
    run = [&global, csv_args] {
      check_outputs({csv_args->out});
      const auto body = parse_json_text(read_text_file(csv_args->timeline), csv_args->timeline);
      const auto series = engine::run_series(body, csv_args->timeline);
      OutputFile writer(csv_args->out);
      engine::write_run_csv(writer.stream(), series);
      writer.commit();
      if (global.json)
        print_json({{"out", csv_args->out}});
      else
        report_stream() << "wrote " << csv_args->out << "\n";
      return kExitOk;
    };
  });
}

}  // namespace servescope::cli
