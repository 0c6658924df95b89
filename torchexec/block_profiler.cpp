#include "torchexec/block_profiler.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <fstream>
#include <numeric>
#include <optional>
#include <thread>

#include "model/core/error.h"

namespace servescope::torchexec {
namespace {

using Clock = std::chrono::steady_clock;

// The sample's nearest-rank percentile.
Duration percentile(std::vector<Duration> sample, double p) {
  std::ranges::sort(sample);
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sample.size())));
  return sample[std::clamp<std::size_t>(rank, 1, sample.size()) - 1];
}

template <typename F>
std::vector<Duration> timed(int warmup, int repeat, F&& run) {
  for (int i = 0; i < warmup; ++i)
    run();
  std::vector<Duration> out;
  out.reserve(static_cast<std::size_t>(repeat));
  for (int i = 0; i < repeat; ++i) {
    const auto start = Clock::now();
    run();
    out.push_back(
        Duration::nanoseconds(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count()));
  }
  return out;
}

}  // namespace

double WholeModelCheck::error() const {
  return whole_p50 > Duration() ? blocks_p50_sum.to_s() / whole_p50.to_s() - 1 : 0;
}

GpuSpec cpu_device_type() {
  std::string model;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.starts_with("model name")) {
      model = line.substr(line.find(':') + 1);
      break;
    }
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string id = "cpu";
  std::string word;
  const auto flush = [&] {
    // Words that say nothing about the part ("Intel(R) Core(TM)" leaves "R" and "TM").
    static const char* noise[] = {"processor", "cpu", "r", "tm", "core", "with", "radeon", "graphics"};
    std::string lower = word;
    std::ranges::transform(lower, lower.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (!lower.empty() &&
        std::ranges::find(noise, lower, [](const char* s) { return std::string(s); }) == std::end(noise) &&
        id.size() < 40)
      id += "-" + lower;
    word.clear();
  };
  for (const char ch : model) {
    if (std::isalnum(static_cast<unsigned char>(ch)))
      word += ch;
    else
      flush();
  }
  flush();
  GpuSpec spec;
  spec.id = id + "-" + std::to_string(threads) + "t";
  const auto trimmed = model.find_first_not_of(' ');
  spec.name = (trimmed == std::string::npos ? std::string("CPU") : model.substr(trimmed)) + ", " +
              std::to_string(threads) + " threads";
  spec.architecture = "cpu";
  return spec;
}

MeasuredProfile profile_model(const TorchModel& model, const ProfileRequest& request,
                              const std::function<void(const ProfileProgress&)>& progress,
                              const std::atomic<bool>* cancel) {
  if (request.batches.empty() || request.shares.empty()) throw QueryError("profile at least one batch and one share");
  if (request.repeat < 1 || request.warmup < 0) throw QueryError("--repeat must be at least 1");
  auto batches = request.batches;
  std::ranges::sort(batches);
  if (std::ranges::adjacent_find(batches) != batches.end() || batches.front() < 1 || batches.back() > kMaxBatchSize)
    throw QueryError("batch sizes must be distinct and 1-" + std::to_string(kMaxBatchSize));
  MeasuredProfile out;
  out.hardware_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const bool on_gpu = model.device() == ComputeDevice::Cuda;
  if (on_gpu) {
    if (request.shares.size() != 1 || request.shares.front() < 1)
      throw QueryError(
          "on a GPU a process measures the one MPS share it was started at (its CUDA_MPS_ACTIVE_THREAD_PERCENTAGE): "
          "profile each share in a process of its own, as profile --device cuda does");
    out.device = engine::gpu::catalog_entry(cuda_device());
  } else {
    out.device = cpu_device_type();
    for (const int s : request.shares)
      if (s < 1 || s > out.hardware_threads)
        throw QueryError("share 1/" + std::to_string(s) + " of " + std::to_string(out.hardware_threads) +
                         " threads is not a whole number of threads ≥ 1");
  }

  const auto& manifest = model.manifest();
  const std::size_t n = model.blocks();
  auto& p = out.profile;
  p.name = manifest.name;
  p.description = "measured on " + out.device.name + " from " + manifest.source;
  p.form = ProfileForm::Blocks;
  p.block_count = static_cast<int>(n);
  for (std::size_t j = 1; j < n; ++j)
    p.boundary_bytes.push_back(manifest.cut_bytes(j));

  ProfileProgress prog;
  prog.total = request.shares.size() * batches.size() * (n + 1);
  const int saved_threads = threads();
  std::optional<Duration> whole_at_1;
  for (const int s : request.shares) {
    if (!on_gpu) set_threads(out.hardware_threads / s);
    BlockTable table;
    table.gpu = out.device.id;
    table.share = GpuShare::parse("1/" + std::to_string(s)).value_or(GpuShare::whole());
    std::vector<std::vector<Duration>> p50(n), p99(n);
    for (const int b : batches) {
      std::vector<std::uint64_t> ids(static_cast<std::size_t>(b));
      std::iota(ids.begin(), ids.end(), std::uint64_t{1});
      auto x = model.synthesize_input(ids);
      Duration sum;
      for (std::size_t k = 0; k < n; ++k) {
        if (cancel && cancel->load()) {
          set_threads(saved_threads);
          throw Cancelled("profiling cancelled");
        }
        prog.what =
            "block " + std::to_string(k) + ", batch " + std::to_string(b) + ", share " + table.share.to_string();
        if (progress) progress(prog);
        const auto sample = timed(request.warmup, request.repeat, [&] { (void)model.run(k, k + 1, x); });
        p50[k].push_back(percentile(sample, 0.5));
        p99[k].push_back(percentile(sample, 0.99));
        if (request.keep_samples) out.samples.push_back({table.share, b, k, sample});
        sum += p50[k].back();
        x = model.run(k, k + 1, x);  // the next block's input
        ++prog.done;
      }
      prog.what = "whole model, batch " + std::to_string(b) + ", share " + table.share.to_string();
      if (progress) progress(prog);
      const auto input = model.synthesize_input(ids);
      const auto whole = percentile(timed(request.warmup, request.repeat, [&] { (void)model.run_whole(input); }), 0.5);
      if (s == request.shares.front() && b == batches.front() && b == 1) whole_at_1 = whole;
      out.checks.push_back({table.share, b, whole, sum});
      ++prog.done;
    }
    for (std::size_t k = 0; k < n; ++k) {
      table.blocks.emplace_back(batches, p50[k]);
      table.p99.emplace_back(batches, p99[k]);
    }
    p.block_tables.push_back(std::move(table));
  }
  set_threads(saved_threads);
  if (whole_at_1 && request.slo_multiplier > 0)
    p.default_slo = Duration::from_s(whole_at_1->to_s() * request.slo_multiplier);
  if (progress) {
    prog.what = "done";
    progress(prog);
  }
  return out;
}

}  // namespace servescope::torchexec
