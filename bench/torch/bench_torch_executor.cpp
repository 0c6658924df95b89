// The LibTorch executor's overhead per batch (BENCHMARKS.md "Real models"): a batch through
// TorchExecutor (queued to its slot's thread, input synthesised, blocks run, report through the
// wake descriptor) against the same blocks' forward called directly in a loop on a ready input.
// Runs alternate between the two so drift in the machine's speed falls on both, 50 ms apart so
// neither side's idle OpenMP threads are still spinning. On a noisy machine the two medians
// differ by a few per cent either way, so the figure is the executor's own time per batch: the
// batch's wall time through it less the forward time it measured itself. Usage:
// bench_torch_executor MODEL_DIR... [--batches 1,8] [--runs 40]
#include <poll.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/cli_context.h"
#include "model/exported/exported_model.h"
#include "torchexec/torch_executor.h"

namespace live = servescope::engine::live;
using namespace servescope;
using namespace servescope::torchexec;
using Clock = std::chrono::steady_clock;

namespace {

double median_ms(std::vector<double> v) {
  std::ranges::sort(v);
  return v[v.size() / 2];
}

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

}  // namespace

int run(int argc, char** argv) {
  std::vector<std::string> folders;
  std::vector<int> batches{1, 8};
  int runs = 40;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::stoi(argv[++i]);
    } else if (a == "--batches" && i + 1 < argc) {
      batches = cli::parse_int_list(argv[++i], a);
    } else {
      folders.push_back(a);
    }
  }
  if (folders.empty()) {
    std::fprintf(stderr, "usage: bench_torch_executor MODEL_DIR... [--batches 1,8] [--runs 40]\n");
    return 2;
  }
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::printf(
      "| model | input | batch | direct forward (ms, median) | through the executor (ms, median) | difference | "
      "executor's own time (ms, median) | own time / forward |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
  std::uint64_t next_id = 1, next_batch = 1;
  for (const auto& folder : folders) {
    auto model = std::make_shared<const TorchModel>(read_exported_model(folder));
    TorchExecutorOptions options;
    options.check_every = 0;  // a check runs on another thread and would take the slot's cores
    TorchExecutor exec({model}, options);
    live::WorkerAssignment assignment;
    assignment.models = {model->manifest().name};
    assignment.slot_share = {{0, 1.0}};
    exec.assign(assignment);
    for (const int b : batches) {
      std::vector<std::uint64_t> ids(static_cast<std::size_t>(b));
      std::iota(ids.begin(), ids.end(), 1);
      const auto input = model->synthesize_input(ids);
      std::vector<double> direct, executed, own;
      for (int r = -3; r < runs; ++r) {  // three rounds of warm-up
        // Each side has its own OpenMP team (the loop's thread, the slot's thread), whose idle
        // threads spin a while after a run: let them sleep, or one side runs against the other.
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        set_threads(hardware);
        auto t = Clock::now();
        (void)model->run(0, model->blocks(), input);
        const double d = ms_since(t);
        live::RunOrder order;
        order.batch = next_batch++;
        order.model = 0;
        for (auto& id : ids)
          id = next_id++;
        order.requests = ids;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        t = Clock::now();
        exec.submit(order, live::SteadyClock::now());
        std::vector<live::RunReport> reports;
        while (reports.empty()) {
          pollfd fd{exec.wake_fd(), POLLIN, 0};
          ::poll(&fd, 1, 1000);
          reports = exec.finished(live::SteadyClock::now());
        }
        const double e = ms_since(t);
        if (r >= 0) {
          direct.push_back(d);
          executed.push_back(e);
          // What the executor adds around the forward it timed itself: queueing, waking the slot
          // thread, the input, the report and the wake-up. Noise in the forward cancels out.
          own.push_back(e - static_cast<double>(reports.front().run_ns) / 1e6);
        }
      }
      const double dm = median_ms(direct), em = median_ms(executed), om = median_ms(own);
      std::string shape;
      for (const auto dim : model->manifest().input_shape)
        shape += (shape.empty() ? "" : "x") + std::to_string(dim);
      std::printf("| %s | %s | %d | %.3f | %.3f | %+.1f %% | %.3f | %.2f %% |\n", model->manifest().name.c_str(),
                  shape.c_str(), b, dm, em, 100 * (em / dm - 1), om, 100 * om / dm);
      std::fflush(stdout);
    }
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
