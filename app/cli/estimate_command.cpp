// `servescope-cli estimate`: block profiles of public CNN architectures on catalog GPUs, from
// layer shapes and datasheet figures (a roofline, docs/estimator.md), for users who have no
// measurements. Writes a profiles file that scenarios pull in with "profile_includes".
#include <iomanip>
#include <iostream>

#include "app/cli/cli_context.h"
#include "app/cli/profiles_output.h"
#include "engine/estimate/cnn_architectures.h"
#include "engine/estimate/profile_estimator.h"
#include "model/core/error.h"

namespace servescope::cli {
namespace {

int list_architectures(const GlobalOptions& global) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& a : engine::cnn_architectures()) {
    const auto graph = a.build();
    list.push_back({{"id", a.id},
                    {"description", a.description},
                    {"layers", graph.size()},
                    {"gmacs", graph.multiply_accumulates() / 1e9},
                    {"weights", graph.total_weights()}});
  }
  if (global.json) {
    print_json(list);
    return kExitOk;
  }
  for (const auto& a : list)
    report_stream() << std::left << std::setw(15) << a["id"].get<std::string>() << std::right << std::setw(4)
                    << a["layers"].get<int>() << " layers " << std::fixed << std::setprecision(2) << std::setw(7)
                    << a["gmacs"].get<double>() << " GMACs  " << a["description"].get<std::string>() << "\n"
                    << std::defaultfloat;
  return kExitOk;
}

}  // namespace

void add_estimate_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand(
      "estimate", "Estimate block profiles of public CNNs on catalog GPUs from layer shapes and datasheet figures");
  struct Args {
    std::vector<std::string> architectures, gpus;
    std::string precision = "fp16", out;
    bool list = false;
    engine::EstimateOptions options;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--arch", args->architectures, "Architectures, comma-separated (see --list)")->delimiter(',');
  cmd->add_option("--gpus", args->gpus, "GPU types (catalog ids), comma-separated")->delimiter(',');
  cmd->add_option("--blocks", args->options.blocks, "Blocks per model (PPipe pre-partitioning)")
      ->check(CLI::Range(1, kMaxBlocks))
      ->capture_default_str();
  cmd->add_option("--reference-gpu", args->options.reference_gpu,
                  "GPU type the blocks are balanced on and the default SLO is taken from")
      ->capture_default_str();
  cmd->add_option("--precision", args->precision,
                  "fp16 (tensor cores where the GPU has them, fp32 elsewhere) or fp32 everywhere")
      ->check(CLI::IsMember({"fp16", "fp32"}))
      ->capture_default_str();
  cmd->add_option("--slo-multiplier", args->options.slo_multiplier,
                  "Default SLO = this x whole-model latency on the reference GPU at batch 1")
      ->check(CLI::Range(0.1, 1000.0))
      ->capture_default_str();
  cmd->add_flag("--list", args->list, "List the architectures and exit");
  cmd->add_option("-o,--out", args->out, "Profiles file to write (atomically); standard output when absent or -");
  cmd->callback([&global, &run, args] {
    run = [&global, args] {
      check_outputs({args->out});
      if (args->list) return list_architectures(global);
      if (args->architectures.empty())
        throw QueryError("choose architectures with --arch ID[,ID...] (known: " + engine::known_architectures() + ")");
      if (args->gpus.empty())
        throw QueryError("choose GPU types with --gpus ID[,ID...] (catalog: " + GpuCatalog::builtin().known_ids() +
                         ")");
      auto options = args->options;
      options.precision = *engine::parse_precision(args->precision);
      const auto set = engine::estimate_profiles(args->architectures, args->gpus, GpuCatalog::builtin(), options);
      return write_profiles(global, args->out, set, {});
    };
  });
}

}  // namespace servescope::cli
