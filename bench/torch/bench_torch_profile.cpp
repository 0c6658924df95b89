// Profiling a model on this CPU (BENCHMARKS.md "Real models"): the wall time of a whole profile
// (every block × batch × share, as `servescope-cli profile` runs it), and how many timed runs
// an entry needs for a median stable within 2 %: the median of each entry's first N runs
// against the median of all of them, over every entry. Usage:
// bench_torch_profile MODEL_DIR [--batches 1-8] [--shares 1,2] [--repeat 40]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "app/cli/cli_context.h"
#include "model/exported/exported_model.h"
#include "torchexec/block_profiler.h"

using namespace servescope;
using namespace servescope::torchexec;

namespace {

double median_of(std::vector<Duration> runs) {
  std::ranges::sort(runs);
  return runs[(runs.size() - 1) / 2].to_s();
}

}  // namespace

int run(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_torch_profile MODEL_DIR [--batches 1-8] [--shares 1,2] [--repeat 40]\n");
    return 2;
  }
  ProfileRequest request;
  request.batches = cli::parse_int_list("1-8", "--batches");
  request.shares = {1, 2};
  request.repeat = 40;
  request.keep_samples = true;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--batches") request.batches = cli::parse_int_list(argv[i + 1], a);
    if (a == "--shares") request.shares = cli::parse_int_list(argv[i + 1], a);
    if (a == "--repeat") request.repeat = std::stoi(argv[i + 1]);
  }
  const TorchModel model(read_exported_model(argv[1]));
  const auto began = std::chrono::steady_clock::now();
  const auto m = profile_model(model, request);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  std::printf("%s: %zu blocks x %zu batches x %zu shares, %d warm-up + %d timed runs each, on %s\n",
              model.manifest().name.c_str(), model.blocks(), request.batches.size(), request.shares.size(),
              request.warmup, request.repeat, m.device.id.c_str());
  std::printf("wall time %.1f s (the whole model timed too, for the sum-of-blocks check)\n\n", wall);
  std::printf("| timed runs N | entries within 2 %% of the median of all %d | largest deviation | 95th percentile |\n",
              request.repeat);
  std::printf("|---:|---:|---:|---:|\n");
  for (const int n : {3, 5, 10, 15, 20, 30, 40}) {
    if (n > request.repeat) break;
    std::vector<double> deviation;
    for (const auto& e : m.samples) {
      const double all = median_of(e.runs);
      const double first = median_of({e.runs.begin(), e.runs.begin() + n});
      deviation.push_back(std::abs(first / all - 1));
    }
    std::ranges::sort(deviation);
    const auto within = std::ranges::count_if(deviation, [](double d) { return d <= 0.02; });
    std::printf("| %d | %ld of %zu (%.1f %%) | %.1f %% | %.1f %% |\n", n, static_cast<long>(within), deviation.size(),
                100.0 * static_cast<double>(within) / static_cast<double>(deviation.size()), 100 * deviation.back(),
                100 * deviation[static_cast<std::size_t>(0.95 * static_cast<double>(deviation.size() - 1))]);
  }
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
