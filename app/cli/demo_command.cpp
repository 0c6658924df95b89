// `servescope-cli demo`: the built-in demo project, summarised, with the closed-form capacity
// of each model it serves (Symphony seed 002 §1.6): what a headless `scripts/run.sh` prints.
#include <iomanip>
#include <iostream>

#include "app/cli/cli_context.h"
#include "app/cli/document_summary.h"
#include "engine/analysis/batch_capacity.h"
#include "model/core/text.h"

namespace servescope::cli {

inline constexpr const char* kDemoProject = "builtin:projects/demo.json";

void add_demo_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand("demo", "Summarise the built-in demo project");
  cmd->callback([&global, &run] {
    run = [&global] {
      const auto doc = load_document(kDemoProject);
      const auto& project = std::get<Project>(doc.content);
      const auto& s = project.scenario;
      auto summary = summarize(doc);
      summary["source"] = kDemoProject;
      // Capacity per model if it had the whole cluster's GPUs of the type it is profiled on.
      nlohmann::json capacity = nlohmann::json::array();
      const auto gpus = s.cluster.gpus_by_type();
      for (const auto& m : s.profiles.models) {
        if (!m.default_slo) continue;
        for (const auto& [gpu, share] : m.configurations()) {
          const auto it = gpus.find(gpu);
          if (!share.is_whole() || it == gpus.end()) continue;
          const auto c = engine::staggered_capacity(m, gpu, it->second, *m.default_slo);
          capacity.push_back({{"model", m.name},
                              {"gpu", gpu},
                              {"gpus", c.gpus},
                              {"slo_ms", m.default_slo->to_ms()},
                              {"batch_no_coordination", c.batch_no_coordination},
                              {"throughput_no_coordination_rps", c.throughput_no_coordination_rps},
                              {"batch_staggered", c.batch_staggered},
                              {"throughput_staggered_rps", c.throughput_staggered_rps}});
        }
      }
      summary["capacity"] = capacity;
      if (global.json) {
        print_json(summary);
        return kExitOk;
      }
      report_stream() << "ServeScope demo (" << kDemoProject << ")\n\n";
      print_summary(report_stream(), summary);
      report_stream()
          << "\nClosed-form capacity on the whole cluster (Symphony Eqs. 1-2): batch and req/s when each GPU\n"
             "batches alone (SLO/2 budget) and when the GPUs are staggered (SLO/(1+1/N) budget)\n\n";
      report_stream() << std::left << std::setw(20) << "model" << std::right << std::setw(9) << "SLO ms" << std::setw(7)
                      << "b_nc" << std::setw(12) << "req/s nc" << std::setw(7) << "b_st" << std::setw(12) << "req/s st"
                      << std::setw(8) << "gain"
                      << "\n";
      for (const auto& c : capacity) {
        const double nc = c["throughput_no_coordination_rps"].get<double>();
        const double st = c["throughput_staggered_rps"].get<double>();
        report_stream() << std::left << std::setw(20) << c["model"].get<std::string>() << std::right << std::fixed
                        << std::setprecision(0) << std::setw(9) << c["slo_ms"].get<double>() << std::setw(7)
                        << c["batch_no_coordination"].get<int>() << std::setw(12) << nc << std::setw(7)
                        << c["batch_staggered"].get<int>() << std::setw(12) << st << std::setprecision(2)
                        << std::setw(7) << (nc > 0 ? st / nc : 0.0) << "x\n";
      }
      report_stream() << std::defaultfloat;
      return kExitOk;
    };
  });
}

}  // namespace servescope::cli
