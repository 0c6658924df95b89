// Profiling a model on this CPU (BENCHMARKS.md "Real models"): the wall time of a whole profile
// (every block × batch × share, as `servescope-cli profile` runs it, each entry timed until its
// median's 95 % interval is within 2 %), the runs that took, and whether back-to-back profiles
// agree (issue 46: within 5 % per entry, and in the default SLO). Usage:
// bench_torch_profile MODEL_DIR [--batches 1-8] [--shares 1,2] [--rounds 3] [--repeat N] [--budget-s S]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "app/cli/cli_context.h"
#include "model/exported/exported_model.h"
#include "torchexec/block_profiler.h"

using namespace servescope;
using namespace servescope::torchexec;

int run(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: bench_torch_profile MODEL_DIR [--batches 1-8] [--shares 1,2] [--rounds 3] [--repeat N] "
                 "[--budget-s S]\n");
    return 2;
  }
  ProfileRequest request;
  request.batches = cli::parse_int_list("1-8", "--batches");
  request.shares = {1, 2};
  int rounds = 3;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--batches") request.batches = cli::parse_int_list(argv[i + 1], a);
    if (a == "--shares") request.shares = cli::parse_int_list(argv[i + 1], a);
    if (a == "--rounds") rounds = std::max(1, std::stoi(argv[i + 1]));
    if (a == "--repeat") request.repeat = RepeatPolicy::fixed(std::stoi(argv[i + 1]), request.repeat.warmup);
    if (a == "--budget-s") request.budget = Duration::from_s(std::stod(argv[i + 1]));
  }
  const TorchModel model(read_exported_model(argv[1]));
  std::vector<MeasuredProfile> profiles;
  std::printf(
      "%s: %zu blocks x %zu batches x %zu shares, %d warm-up runs, then %d to %d timed until the median is "
      "within %.0f %%\n\n",
      model.manifest().name.c_str(), model.blocks(), request.batches.size(), request.shares.size(),
      request.repeat.warmup, request.repeat.min_runs, request.repeat.max_runs, 100 * request.repeat.precision);
  std::printf("| round | wall time | timed entries | runs per entry: median, most | not within %.0f %% (widest) |\n",
              100 * request.repeat.precision);
  std::printf("|---:|---:|---:|---:|---:|\n");
  for (int r = 1; r <= rounds; ++r) {
    const auto began = std::chrono::steady_clock::now();
    profiles.push_back(profile_model(model, request));
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    const auto& m = profiles.back();
    std::vector<int> runs;
    for (const auto& t : m.profile.block_tables)
      for (const auto& row : t.distributions)
        for (const auto& d : row)
          runs.push_back(d.runs);
    std::ranges::sort(runs);
    std::printf("| %d | %.1f s | %zu | %d, %d | %zu (±%.1f %%) |\n", r, wall, m.entries, runs[runs.size() / 2],
                runs.back(), m.unstable, 100 * m.widest_spread);
  }
  if (profiles.size() < 2) return 0;
  // Each entry's median in every round against their mean.
  std::vector<double> deviation;
  struct Worst {
    double deviation;
    std::string entry;
  };
  std::vector<Worst> worst;
  const auto& first = profiles.front().profile;
  for (std::size_t t = 0; t < first.block_tables.size(); ++t)
    for (std::size_t k = 0; k < first.block_tables[t].blocks.size(); ++k)
      for (std::size_t b = 0; b < request.batches.size(); ++b) {
        std::vector<double> medians;
        for (const auto& m : profiles)
          medians.push_back(m.profile.block_tables[t].blocks[k].latency()[b].to_s());
        double mean = 0;
        for (const double v : medians)
          mean += v / static_cast<double>(medians.size());
        double largest = 0;
        std::string entry = "share " + first.block_tables[t].share.to_string() + ", block " + std::to_string(k) +
                            ", batch " + std::to_string(first.block_tables[t].blocks[k].batches()[b]) + ":";
        for (const double v : medians) {
          deviation.push_back(std::abs(v / mean - 1));
          largest = std::max(largest, deviation.back());
          char ms[32];
          std::snprintf(ms, sizeof ms, " %.3f", 1e3 * v);
          entry += ms;
        }
        worst.push_back({largest, entry + " ms"});
      }
  std::ranges::sort(worst, std::greater<>{}, &Worst::deviation);
  std::printf("\nthe entries whose rounds differ most:\n");
  for (std::size_t i = 0; i < std::min<std::size_t>(5, worst.size()); ++i)
    std::printf("  %s (%.1f %% from their mean)\n", worst[i].entry.c_str(), 100 * worst[i].deviation);
  std::ranges::sort(deviation);
  const auto within = std::ranges::count_if(deviation, [](double d) { return d <= 0.05; });
  std::vector<double> slo;
  for (const auto& m : profiles)
    slo.push_back(m.profile.default_slo ? m.profile.default_slo->to_ms() : 0);
  const auto [lo, hi] = std::ranges::minmax(slo);
  std::printf(
      "\nentry medians against their mean over %zu rounds: %ld of %zu within 5 %% (%.1f %%), largest %.1f %%, "
      "95th percentile %.1f %%\n",
      profiles.size(), static_cast<long>(within), deviation.size(),
      100.0 * static_cast<double>(within) / static_cast<double>(deviation.size()), 100 * deviation.back(),
      100 * deviation[static_cast<std::size_t>(0.95 * static_cast<double>(deviation.size() - 1))]);
  std::printf("default SLO: %.3f to %.3f ms (spread %.1f %% of the smallest)\n", lo, hi, 100 * (hi / lo - 1));
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // a bad option, a model folder that does not load
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
