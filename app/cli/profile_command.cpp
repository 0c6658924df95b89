// `servescope-cli profile MODEL_DIR`: measures a model exported into blocks
// (scripts/export_model.py) with LibTorch, on this machine's CPU or (--device cuda, a CUDA
// LibTorch) on its GPU at MPS shares, a process per share (app/cli/mps_share_profiles.h), and
// writes the project's block-form profile (median and 99th percentile per block, batch and share;
// measured bytes at each cut). `--scenario-out` also writes a scenario that plans it straight
// away: the device as a type of its own, a cluster of --nodes such servers, the profile, and a
// workload. `--arch NAME --device cuda` measures the estimator's CNNs with calibrated kernels
// instead (app/cli/cuda_commands.h). See README "Real models" and "GPU execution".
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>

#include "app/cli/cli_context.h"
#include "app/cli/cuda_commands.h"
#include "app/cli/profiles_output.h"
#include "app/cli/program_handover.h"
#include "model/core/error.h"
#include "model/io/document.h"

#ifdef SERVESCOPE_HAVE_TORCH
#include "app/cli/mps_share_profiles.h"
#include "torchexec/block_profiler.h"
#endif

namespace servescope::cli {
void add_profile_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand(
      "profile",
      "Measure a model exported into blocks (scripts/export_model.py) with LibTorch on this machine's CPU or GPU, or "
      "the estimator's CNNs on its GPU with calibrated kernels (--arch NAME --device cuda)");
  struct Args {
    std::string folder, device = "cpu", batches = "1,2,4,8", shares = "1", out, scenario_out;
    int repeat = 0, min_repeat = 10, max_repeat = 400, warmup = 3, nodes = 2, rounds = 3;
    double precision = 0.02, budget_s = 0;
    bool share_process = false, no_contention = false;
    std::string share_program;
    double rate_rps = 0, slo_multiplier = 5.0;
    CudaProfileArgs cuda;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("MODEL_DIR", args->folder, "The model folder (its servescope-model.json and blocks)");
  cmd->add_option("--device", args->device,
                  "cpu or cuda: a MODEL_DIR on this CPU, or on GPU 0 at MPS shares (a CUDA LibTorch; Debian's has "
                  "none); the --arch CNNs on a GPU")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--arch", args->cuda.architectures,
                  "With --device cuda: the estimator's CNNs to measure (estimate --list), comma-separated")
      ->delimiter(',');
  cmd->add_option("--gpu", args->cuda.gpu, "With --device cuda: which GPU (see gpu list)")
      ->check(CLI::Range(0, 63))
      ->capture_default_str();
  cmd->add_option("--blocks", args->cuda.blocks, "With --device cuda: blocks per model (PPipe pre-partitioning)")
      ->check(CLI::Range(1, kMaxBlocks))
      ->capture_default_str();
  cmd->add_option("--batches", args->batches, "Batch sizes, e.g. 1-8 or 1,2,4,8")->capture_default_str();
  cmd->add_option("--shares", args->shares,
                  "Shares as divisors s: on the CPU share 1/s = hardware threads / s; on a GPU an MPS partition of "
                  "100/s % of its threads, measured in a process of its own; e.g. 1,2,4")
      ->capture_default_str();
  cmd->add_flag("--no-contention", args->no_contention,
                "Do not measure how slots of a share below 1 slow each other running at once (the CPU: k = 2..s "
                "slots of share 1/s together); the simulator then runs them as if alone");
  // The process profile --device cuda starts per share, at the share its environment gives it.
  cmd->add_flag("--share-process", args->share_process)->group("");
  // For rehearsing without a GPU: a program that stands in for this one in those processes.
  cmd->add_option("--share-program", args->share_program)->group("");
  cmd->add_option("--repeat", args->repeat,
                  "Timed runs per block, batch and share, fixed (default: until the median is known to --precision; "
                  "20 with --arch)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--precision", args->precision,
                  "Time each entry until its median's 95 % interval is within this fraction of it")
      ->check(CLI::Range(0.001, 0.5))
      ->capture_default_str();
  cmd->add_option("--min-repeat", args->min_repeat, "Timed runs per entry at least")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--max-repeat", args->max_repeat, "Timed runs per entry at most")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--rounds", args->rounds,
                  "Time each entry in this many rounds spread over the profile, its runs pooled (the first round "
                  "finds how many each needs; --repeat and the run limits are split between them), so that a slow "
                  "spell of the machine falls on many entries a little rather than on one")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--budget-s", args->budget_s,
                  "Seconds for all the timed runs together, shared out among the entries (default: no limit)")
      ->check(CLI::Range(0.0, 1e6));
  cmd->add_option("--warmup", args->warmup, "Untimed runs before them")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_option("--slo-multiplier", args->slo_multiplier,
                  "Default SLO = this x the whole model's median at batch 1 on the first share")
      ->check(CLI::Range(0.1, 1000.0))
      ->capture_default_str();
  cmd->add_option("-o,--out", args->out, "Profiles file to write (atomically); standard output when absent or -");
  cmd->add_option("--scenario-out", args->scenario_out,
                  "Also write a scenario: this CPU as a device type, --nodes servers of it, the profile, a workload");
  cmd->add_option("--nodes", args->nodes, "Servers in that scenario's cluster")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--rate", args->rate_rps,
                  "That workload's rate in req/s (default: half of what one server does at the largest batch)")
      ->check(CLI::Range(0.0, 1e7));
  cmd->callback([&global, &run, args] {
    run = [&global, args]() -> int {
      check_outputs({args->out, args->scenario_out});
      if (!args->cuda.architectures.empty()) {
        if (args->device != "cuda" || !args->folder.empty())
          throw QueryError(
              "--arch NAME measures the estimator's CNNs on a GPU: with --device cuda, without a MODEL_DIR");
        args->cuda.scenario_out = args->scenario_out;
        args->cuda.nodes = args->nodes;
        args->cuda.rate_rps = args->rate_rps;
        if (args->repeat > 0) args->cuda.repeats = args->repeat;  // else the kernel profiler's own count
        args->cuda.slo_multiplier = args->slo_multiplier;
        args->cuda.out = args->out;
        return run_cuda_profile(global, args->cuda);
      }
      if (args->folder.empty()) throw QueryError("profile needs a MODEL_DIR (or --arch NAME --device cuda)");
#ifndef SERVESCOPE_HAVE_TORCH
      hand_over_to_torch();  // returns only where there is none
#else
      if (args->device == "cuda" && args->cuda.gpu != 0)
        throw QueryError("a MODEL_DIR is measured on GPU 0: choose which GPU that is with CUDA_VISIBLE_DEVICES");
      auto& out = report_stream();
      ModelProfile profile;
      GpuSpec device;
      std::vector<ContentionModel> contention;
      if (args->device == "cuda" && !args->share_process) {
        MpsShareProfileRequest request;
        request.program = args->share_program.empty() ? own_program() : args->share_program;
        request.model_dir = args->folder;
        request.shares = parse_int_list(args->shares, "--shares", 64);
        request.extra = {"--batches",        args->batches,
                         "--warmup",         std::to_string(args->warmup),
                         "--precision",      std::to_string(args->precision),
                         "--min-repeat",     std::to_string(args->min_repeat),
                         "--max-repeat",     std::to_string(args->max_repeat),
                         "--rounds",         std::to_string(args->rounds),
                         "--slo-multiplier", std::to_string(args->slo_multiplier)};
        if (args->repeat > 0) request.extra.insert(request.extra.end(), {"--repeat", std::to_string(args->repeat)});
        if (args->budget_s > 0)  // shared among the shares' processes as among a process's entries
          request.extra.insert(
              request.extra.end(),
              {"--budget-s", std::to_string(args->budget_s / static_cast<double>(request.shares.size()))});
        auto measured = profile_at_mps_shares(request);
        profile = std::move(measured.profile);
        device = std::move(measured.device);
      } else {
        torchexec::ProfileRequest request;
        request.batches = parse_int_list(args->batches, "--batches", kMaxBatchSize);
        request.shares = parse_int_list(args->shares, "--shares", kMaxBatchSize);
        if (args->repeat > 0) {
          request.repeat = RepeatPolicy::fixed(args->repeat, args->warmup);
          request.repeat.precision = args->precision;  // what the report holds the medians to
        } else {
          if (args->max_repeat < args->min_repeat) throw QueryError("--max-repeat is below --min-repeat");
          request.repeat = {args->warmup, args->min_repeat, args->max_repeat, args->precision};
        }
        request.budget = Duration::from_s(args->budget_s);
        request.rounds = args->rounds;
        request.slo_multiplier = args->slo_multiplier;
        request.contention = !args->no_contention;
        const torchexec::TorchModel model(read_exported_model(args->folder), args->device == "cuda"
                                                                                 ? torchexec::ComputeDevice::Cuda
                                                                                 : torchexec::ComputeDevice::Cpu);
        // A line per tenth of the work, and at least one a second: a terminal stays readable and a
        // GUI's progress bar (which reads these lines) keeps moving on a long model.
        std::size_t last_tenth = 0;
        auto last_line = std::chrono::steady_clock::now();
        auto measured = torchexec::profile_model(model, request, [&](const torchexec::ProfileProgress& p) {
          const std::size_t tenth = p.total ? 10 * p.done / p.total : 10;
          const auto now = std::chrono::steady_clock::now();
          if (p.done == 0 || tenth > last_tenth || p.done == p.total || now - last_line >= std::chrono::seconds(1)) {
            std::cerr << "profiling " << model.manifest().name << ": " << p.done << "/" << p.total << " " << p.what;
            if (p.runs > 0)  // the entry before it: how many runs it took, and how well they agree
              std::cerr << " (last: " << p.runs << " runs, median " << std::fixed << std::setprecision(3)
                        << p.median.to_ms() << " ms ± " << std::setprecision(1) << 100 * p.spread << " %)"
                        << std::defaultfloat;
            std::cerr << "\n";
            last_tenth = tenth;
            last_line = now;
          }
        });
        out << "device type " << measured.device.id << " (" << measured.device.name << ")\n";
        out << "sum of the blocks' medians against the whole model's:\n";
        for (const auto& c : measured.checks)
          out << "  share " << c.share.to_string() << ", batch " << c.batch << ": " << std::fixed
              << std::setprecision(3) << c.blocks_p50_sum.to_ms() << " ms vs " << c.whole_p50.to_ms() << " ms ("
              << std::showpos << std::setprecision(1) << 100 * c.error() << std::noshowpos << " %)\n"
              << std::defaultfloat;
        out << "timed " << measured.entries << " entries";
        if (measured.unstable > 0) {
          out << "; " << measured.unstable << " stopped with the median's 95 % interval wider than ±" << std::fixed
              << std::setprecision(1) << 100 * request.repeat.precision << " % (";
          if (std::isinf(measured.widest_spread))
            out << "fewer than 8 runs cannot bound it";
          else
            out << "widest ±" << 100 * measured.widest_spread << " %";
          out << "): a busy machine, or the runs allowed (--repeat, --max-repeat, --budget-s)" << std::defaultfloat;
        }
        out << "\n";
        if (!measured.bimodal.empty()) {
          // Their median is the mode most of these runs fell in: another profile may read the other.
          out << measured.bimodal.size()
              << (measured.bimodal.size() == 1 ? " entry's runs fell in two modes, so its median"
                                               : " entries' runs fell in two modes, so their medians")
              << " can move between profiles of this machine:\n";
          const std::size_t shown = std::min<std::size_t>(measured.bimodal.size(), 6);
          for (std::size_t i = 0; i < shown; ++i) {
            const auto& e = measured.bimodal[i];
            out << "  " << (e.block < 0 ? std::string("whole model") : "block " + std::to_string(e.block)) << ", batch "
                << e.batch << ", share " << e.share.to_string() << ": " << std::fixed << std::setprecision(3)
                << e.modes.low.to_ms() << " and " << e.modes.high.to_ms() << " ms (" << std::setprecision(0)
                << 100 * e.modes.high_fraction << " % of runs in the slower)\n"
                << std::defaultfloat;
          }
          if (shown < measured.bimodal.size()) out << "  and " << measured.bimodal.size() - shown << " more\n";
        }
        if (measured.profile.default_slo && !measured.checks.empty()) {
          const auto& base = measured.checks.front();
          out << "default SLO " << std::fixed << std::setprecision(3) << measured.profile.default_slo->to_ms()
              << " ms: " << std::setprecision(1) << args->slo_multiplier << " x the whole model's median at batch "
              << base.batch << ", " << std::setprecision(3) << base.whole_p50.to_ms() << " ms ± "
              << std::setprecision(1) << 100 * base.whole_spread << " % (" << base.whole_runs << " runs)\n"
              << std::defaultfloat;
        }
        if (!measured.contention.samples.empty()) {
          out << "slots at once, each one's median over its median alone:\n";
          for (const auto& c : measured.contention.samples)
            out << "  " << c.slots << " x share " << c.share.to_string() << ", batch " << c.batch << ": x" << std::fixed
                << std::setprecision(2) << c.slowdown << std::defaultfloat << " (" << c.runs << " runs)\n";
          contention.push_back(std::move(measured.contention));
        }
        profile = std::move(measured.profile);
        device = std::move(measured.device);
      }
      ProfileSet set;
      set.name = profile.name;
      set.source = "servescope-cli profile on " + device.name;
      set.models.push_back(profile);
      set.contention = contention;
      if (!args->scenario_out.empty()) {
        double rate = args->rate_rps;
        if (!(rate > 0)) {  // half of what one server does at its largest share and batch
          const auto largest = std::ranges::max_element(profile.block_tables, {}, [](const BlockTable& t) {
                                 return t.share.fraction();
                               })->share;
          const int batch = profile.max_batch(device.id, largest);
          rate = 0.5 * batch / profile.latency({device.id, largest, batch, std::nullopt}).to_s();
        }
        save_scenario(args->scenario_out, measured_scenario(profile, device, args->nodes, rate,
                                                            args->device == "cuda" ? "gpu" : "cpu", contention));
        out << "wrote " << args->scenario_out << " (" << args->nodes << " x " << device.id << ", " << std::fixed
            << std::setprecision(1) << rate << std::defaultfloat << " req/s)\n";
      }
      return write_profiles(global, args->out, set, {});
#endif
    };
  });
}

}  // namespace servescope::cli
