// `servescope-cli measure-interference --gpu N`: gpu-let's interference training data measured
// on this machine's GPU (engine/gpuexec/corun_measurement.h): co-runs of calibrated workloads on
// MPS partitions, written as the CSV fit-interference reads, with the workloads' utilisation and
// the fitted coefficients as a profiles file, and the fit's validation error reported beside the
// paper's RTX 2080 Ti coefficients when --reference names them. Runs in servescope-cuda.
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "app/cli/cli_context.h"
#include "app/cli/cuda_commands.h"
#include "app/cli/profiles_output.h"
#include "engine/gpuexec/corun_measurement.h"
#include "model/core/error.h"
#include "model/import/glet_import.h"
#include "model/io/file_io.h"

namespace servescope::cli {
namespace {

void print_model(std::ostream& out, const std::string& label, const InterferenceModel& m) {
  out << std::fixed << std::setprecision(5) << "  " << std::left << std::setw(28) << label << std::right
      << std::setw(10) << m.l2_self << std::setw(10) << m.l2_other << std::setw(10) << m.dram_self << std::setw(10)
      << m.dram_other << std::setw(10) << m.constant << "\n"
      << std::defaultfloat;
}

}  // namespace

void add_measure_interference_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand(
      "measure-interference",
      "Measure gpu-let's interference on a GPU: co-runs of calibrated workloads on MPS partitions, then fit");
  struct Args {
    int gpu = 0, gemm_size = 1024;
    std::string out, profiles_out, reference, batches = "2,8,32", sizes = "20,40,50", type;
    int window_ms = 300;
    std::string slot_program;
    double train = 0.7;
    std::uint64_t seed = 1;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--gpu", args->gpu, "Which GPU (see gpu list)")->check(CLI::Range(0, 63))->capture_default_str();
  cmd->add_option("-o,--out", args->out, "The co-runs as CSV (fit-interference reads it)")->required();
  cmd->add_option("--profiles-out", args->profiles_out,
                  "The workloads' L2/DRAM utilisation and the fitted model, as a profiles file");
  cmd->add_option("--type", args->type,
                  "The GPU type (catalog id) to record them under (default: the id gpu list gives this GPU)");
  cmd->add_option("--batches", args->batches, "Batch sizes of each workload, e.g. 2,8,32")->capture_default_str();
  cmd->add_option("--sizes", args->sizes, "Partitions as the smaller side's %, each measured both ways round")
      ->capture_default_str();
  cmd->add_option("--window-ms", args->window_ms, "How long each solo and co-run runs")
      ->check(CLI::Range(10, 60'000))
      ->capture_default_str();
  cmd->add_option("--reference", args->reference,
                  "gpu-let's coefficients to compare with (INT_MODEL_CONSTANT.CSV, e.g. "
                  "../shared/data/glet/resource/2080ti/INT_MODEL_CONSTANT.CSV)");
  cmd->add_option("--train", args->train, "Fraction of the co-runs to fit on; the rest validate")
      ->check(CLI::Range(0.05, 1.0))
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the train/validation split")->capture_default_str();
  // A stand-in for the GPU: a program that speaks the slot protocol on stdin and stdout (the
  // tests' model GPU, tests/support/fake_slot_main.cpp), started with its share in
  // CUDA_MPS_ACTIVE_THREAD_PERCENTAGE as a real slot is. For rehearsing a GPU run without one.
  cmd->add_option("--slot-program", args->slot_program,
                  "Run the co-runs on this slot program instead of this machine's GPU (a stand-in, for rehearsals)")
      ->group("");
  cmd->callback([&global, &run, args] {
    run = [&global, args]() -> int {
      check_outputs({args->out, args->profiles_out});
      const auto batches = parse_int_list(args->batches, "--batches", kMaxBatchSize);
      const auto sizes = parse_int_list(args->sizes, "--sizes", 50);
      std::optional<InterferenceModel> reference;
      if (!args->reference.empty())
        reference = parse_glet_interference(read_text_file(args->reference), args->reference, "RTX2080Ti");
      engine::gpuexec::CorunOptions o;
      if (!args->slot_program.empty()) {
        if (args->type.empty()) throw QueryError("--slot-program needs --type: the stand-in has no catalog entry");
        o.slot_command = [program = args->slot_program](int percent) {
          return engine::gpuexec::SlotCommand{{program},
                                              {{"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(percent)}}};
        };
        o.gpu = args->type;
      } else {
        // MPS partitions are what is measured: without the daemon there are none.
        const auto inventory = require_gpu(args->gpu, true);
        const auto& device = inventory.devices.at(static_cast<std::size_t>(args->gpu));
        const int gpu = args->gpu, gemm_size = args->gemm_size;
        o.slot_command = [gpu, gemm_size](int percent) { return cuda_slot_command(gpu, gemm_size, percent); };
        o.gpu = args->type.empty() ? engine::gpu::catalog_entry(device).id : args->type;
      }
      o.batches = batches;
      o.sizes = sizes;
      o.window = std::chrono::milliseconds(args->window_ms);
      o.progress = [](const std::string& line) { std::cerr << "measure-interference: " << line << "\n"; };
      // A regular file holds every co-run so far, replaced whole after each one: a run stopped
      // by a timeout still leaves its rows. Standard output and devices get the CSV once.
      if (!names_standard_output(args->out) &&
          (!std::filesystem::exists(args->out) || std::filesystem::is_regular_file(args->out)))
        o.rows_so_far = [out = args->out](const std::vector<engine::gpuexec::CorunRow>& rows) {
          write_output_file(out, engine::gpuexec::coruns_csv(rows));
        };
      const auto result = engine::gpuexec::measure_coruns(o);
      write_output_file(args->out, engine::gpuexec::coruns_csv(result.rows));

      auto fit = engine::gpuexec::fit_coruns(result, o.gpu, args->train, args->seed);
      fit.model.source = "servescope-cli measure-interference on " + result.device;

      auto& out = global.json ? std::cerr : report_stream();
      out << result.rows.size() / 2 << " co-runs on " << result.device << ", both sides busy " << std::fixed
          << std::setprecision(1) << 100 * result.mean_overlap << " % of the time on average; wrote " << args->out
          << "\n"
          << std::defaultfloat;
      out << "coefficients            c1 (L2 self) c2 (L2 oth) c3 (DRAM s) c4 (DRAM o)        c5\n";
      print_model(out, "fitted on " + std::to_string(fit.train) + " co-runs", fit.model);
      if (reference) print_model(out, "gpu-let, RTX 2080 Ti", *reference);
      if (fit.validation > 0)
        out << std::fixed << std::setprecision(2) << "validation on " << fit.validation
            << " co-runs: relative error p50 " << 100 * fit.error_quantile(0.5) << " %, p90 "
            << 100 * fit.error_quantile(0.9) << " %, max " << 100 * fit.error_quantile(1.0) << " %\n"
            << std::defaultfloat;
      ProfileSet set;
      set.name = "interference on " + o.gpu;
      set.source = fit.model.source;
      set.utilisation = result.utilisation;
      set.interference.push_back(fit.model);
      if (args->profiles_out.empty() && !global.json) return kExitOk;
      return write_profiles(global, args->profiles_out, set, {});
    };
  });
}

}  // namespace servescope::cli
