// `servescope-cli fit-interference`: fits gpu-let's linear interference model (seed 003 §4.4) to
// measured co-runs — pairs of models on the two glets of one GPU, each side's latency alone and
// together — with the models' L2/DRAM utilisation from a profiles file, and reports how well it
// predicts the co-runs it did not see.
#include <iomanip>
#include <iostream>

#include "app/cli/cli_context.h"
#include "app/cli/profiles_output.h"
#include "engine/glet/interference_fit.h"
#include "model/core/error.h"
#include "model/gpu/gpu_catalog.h"
#include "model/io/csv_reader.h"
#include "model/io/document.h"
#include "model/io/file_io.h"

namespace servescope::cli {
namespace {

constexpr std::string_view kColumns[] = {
    "model", "batch", "size_percent", "other_model", "other_batch", "other_size_percent", "solo_ms", "corun_ms"};

// One sample per row: the first model's slowdown beside the second.
std::vector<engine::InterferenceSample> read_coruns(const std::string& file, const ProfileSet& profiles,
                                                    const std::string& gpu) {
  const CsvDocument csv(read_text_file(file), file);
  if (csv.rows().empty()) throw InputError(file, "", "no rows");
  const auto& header = csv.rows().front();
  csv.expect_columns(header, std::size(kColumns));
  for (std::size_t c = 0; c < std::size(kColumns); ++c)
    if (csv.cell(header, c) != kColumns[c])
      csv.fail(header, c,
               "expected the header model,batch,size_percent,other_model,other_batch,"
               "other_size_percent,solo_ms,corun_ms");
  const auto util = [&](const CsvRow& row, std::size_t col) {
    const std::string name(csv.cell(row, col));
    for (const auto& u : profiles.utilisation)
      if (u.model == name && u.gpu == gpu) return &u;
    csv.fail(row, col, "no L2/DRAM utilisation for " + name + " on " + gpu + " in the profiles");
  };
  std::vector<engine::InterferenceSample> out;
  for (std::size_t r = 1; r < csv.rows().size(); ++r) {
    const auto& row = csv.rows()[r];
    csv.expect_columns(row, std::size(kColumns));
    const auto* self = util(row, 0);
    const auto* other = util(row, 3);
    const auto batch = static_cast<int>(csv.integer(row, 1, 1, kMaxBatchSize));
    const auto size = csv.number(row, 2, 1, 100) / 100;
    const auto other_batch = static_cast<int>(csv.integer(row, 4, 1, kMaxBatchSize));
    const auto other_size = csv.number(row, 5, 1, 100) / 100;
    const double solo = csv.number(row, 6, 1e-6, 1e9), corun = csv.number(row, 7, 1e-6, 1e9);
    out.push_back(engine::corun_sample(*self, batch, size, *other, other_batch, other_size, solo, corun));
  }
  return out;
}

}  // namespace

void add_fit_interference_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand(
      "fit-interference",
      "Fit gpu-let's linear interference model to measured co-runs (CSV: model,batch,size_percent,other_model,"
      "other_batch,other_size_percent,solo_ms,corun_ms)");
  struct Args {
    std::string coruns, profiles, gpu, out;
    double train = 0.7;
    std::uint64_t seed = 1;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--coruns", args->coruns, "Co-run measurements (CSV with the header above)")->required();
  cmd->add_option("--profiles", args->profiles, "Profiles, scenario or project file with the models' utilisation")
      ->required();
  cmd->add_option("--gpu", args->gpu, "GPU type the co-runs were measured on (catalog id or alias)")->required();
  cmd->add_option("--train", args->train, "Fraction of the co-runs to fit on; the rest validate")
      ->check(CLI::Range(0.05, 1.0))
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the train/validation split")->capture_default_str();
  cmd->add_option("-o,--out", args->out,
                  "Write the fitted model as a profiles file (atomically; - is standard output)");
  cmd->callback([&global, &run, args] {
    run = [&global, args] {
      check_outputs({args->out});
      const auto gpu = GpuCatalog::builtin().canonical_id(args->gpu);
      const auto profiles = profiles_in(args->profiles);
      const auto fit = engine::fit_interference(read_coruns(args->coruns, profiles, gpu), gpu, args->train, args->seed);
      if (!global.json) {
        std::cerr << std::fixed << std::setprecision(5) << "fitted on " << fit.train << " co-runs: c1 (L2 self) "
                  << fit.model.l2_self << ", c2 (L2 other) " << fit.model.l2_other << ", c3 (DRAM self) "
                  << fit.model.dram_self << ", c4 (DRAM other) " << fit.model.dram_other << ", c5 "
                  << fit.model.constant << "\n";
        if (fit.validation > 0)
          std::cerr << std::setprecision(2) << "validation on " << fit.validation << " co-runs: relative error p50 "
                    << 100 * fit.error_quantile(0.5) << " %, p90 " << 100 * fit.error_quantile(0.9) << " %, p95 "
                    << 100 * fit.error_quantile(0.95) << " %, max " << 100 * fit.error_quantile(1.0) << " %\n"
                    << std::defaultfloat;
      }
      ProfileSet set;
      set.name = "interference on " + gpu;
      set.source = args->coruns;
      set.interference.push_back(fit.model);
      return write_profiles(global, args->out, set, {});
    };
  });
}

}  // namespace servescope::cli
