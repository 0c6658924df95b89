#include "torchexec/block_profiler.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <exception>
#include <fstream>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>

#include "model/core/error.h"
#include "model/profile/latency_distribution.h"
#include "model/profile/measured_table.h"

namespace servescope::torchexec {
namespace {

using Clock = std::chrono::steady_clock;

Duration since(Clock::time_point start) {
  return Duration::nanoseconds(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
}

struct Together {
  StableTiming timing;               // the first slot's
  LatencyDistribution distribution;  // every slot's runs made while all of them ran
};

// k slots of `threads` threads each running the whole model at batch `batch` at once: the first,
// on this thread, timed until its median is stable (`time_entry`), the others beside it on
// threads of their own until it is done. A run of theirs that ended after it stopped partly ran
// alone, and does not count; their warm-up runs do not either.
template <typename TimeEntry>
Together run_together(const TorchModel& model, int k, int threads, int batch, const TimeEntry& time_entry) {
  std::vector<std::uint64_t> ids(static_cast<std::size_t>(batch));
  std::iota(ids.begin(), ids.end(), std::uint64_t{1});
  std::atomic<bool> stop{false};
  std::mutex failed;
  std::exception_ptr failure;
  std::vector<std::vector<Duration>> beside(static_cast<std::size_t>(k - 1));
  std::vector<std::thread> others;
  for (int i = 1; i < k; ++i)
    others.emplace_back([&, slot = static_cast<std::size_t>(i - 1)] {
      try {
        set_threads(threads);
        const auto input = model.synthesize_input(ids);
        for (int warm = 0; warm < 2 && !stop.load(); ++warm)
          (void)model.run_whole(input);
        while (!stop.load()) {
          const auto start = Clock::now();
          (void)model.run_whole(input);
          if (!stop.load()) beside[slot].push_back(since(start));
        }
      } catch (...) {
        const std::lock_guard lock(failed);
        failure = std::current_exception();
        stop = true;
      }
    });
  Together out;
  try {
    set_threads(threads);
    const auto input = model.synthesize_input(ids);
    out.timing = time_entry([&] { (void)model.run_whole(input); });
  } catch (...) {
    stop = true;
    for (auto& t : others)
      t.join();
    throw;
  }
  stop = true;
  for (auto& t : others)
    t.join();
  if (failure) std::rethrow_exception(failure);
  auto runs = out.timing.runs;
  for (const auto& r : beside)
    runs.insert(runs.end(), r.begin(), r.end());
  out.distribution = LatencyDistribution::of(std::move(runs));
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
  if (request.repeat.min_runs < 1 || request.repeat.warmup < 0 || request.repeat.max_runs < request.repeat.min_runs)
    throw QueryError("timed runs per entry: at least 1, and the most no fewer than the least");
  if (!(request.repeat.precision > 0)) throw QueryError("the median's precision must be above 0");
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

  const int rounds = std::max(1, request.rounds);
  ProfileProgress prog;
  prog.total = request.shares.size() * batches.size() * (n + 1) * static_cast<std::size_t>(rounds);
  if (request.contention && !on_gpu)
    for (const int s : request.shares)
      if (s >= 2) prog.total += static_cast<std::size_t>(s - 1) * batches.size();
  const auto started = Clock::now();
  // Each entry gets an equal part of what is left of the budget: an entry that stopped early
  // leaves its time to the ones after it.
  const auto time_with = [&](const RepeatPolicy& policy, const std::function<void()>& run) {
    const auto entry_start = Clock::now();
    std::function<bool()> out_of_time;
    if (request.budget > Duration()) {
      const auto left = request.budget - since(started);
      const auto entries_left = static_cast<std::int64_t>(std::max<std::size_t>(1, prog.total - prog.done));
      const auto share = Duration::nanoseconds(std::max<std::int64_t>(0, left.count_ns() / entries_left));
      out_of_time = [entry_start, share] { return since(entry_start) >= share; };
    }
    return time_until_stable(
        policy,
        [&] {
          const auto start = Clock::now();
          run();
          return since(start);
        },
        out_of_time);
  };
  const auto count_entry = [&](const StableTiming& timing) {
    ++out.entries;
    if (!timing.stable) {
      ++out.unstable;
      out.widest_spread = std::max(out.widest_spread, timing.half_width);
    }
  };
  const auto time_entry = [&](const std::function<void()>& run) {
    auto timing = time_with(request.repeat, run);
    count_entry(timing);
    return timing;
  };
  // The first round times an entry as the policy says, scaled to one round's part of its runs,
  // until that part's median is known well enough; each later round runs it as often again, so
  // that every round weighs the same in the pooled runs that make the entry.
  auto round_policy = request.repeat;
  round_policy.min_runs = (request.repeat.min_runs + rounds - 1) / rounds;
  round_policy.max_runs = std::max(round_policy.min_runs, (request.repeat.max_runs + rounds - 1) / rounds);
  // The pooled median's interval is about 1/√rounds of one round's, so a round may stop at √rounds
  // times the precision asked of the whole.
  round_policy.precision = request.repeat.precision * std::sqrt(static_cast<double>(rounds));
  const auto pooled = [&](std::vector<Duration> runs) {
    StableTiming t;
    std::ranges::sort(runs);
    t.half_width = median_half_width(runs);
    t.stable = t.half_width <= request.repeat.precision;
    t.runs = std::move(runs);
    count_entry(t);
    return t;
  };
  const auto finished = [&](const StableTiming& t, const LatencyDistribution& d) {
    ++prog.done;
    prog.runs = static_cast<int>(t.runs.size());
    prog.median = d.median();
    prog.spread = t.half_width;
  };

  const int saved_threads = threads();
  std::optional<Duration> whole_at_1;
  for (const int s : request.shares) {
    if (!on_gpu) set_threads(out.hardware_threads / s);
    BlockTable table;
    table.gpu = out.device.id;
    table.share = GpuShare::parse("1/" + std::to_string(s)).value_or(GpuShare::whole());
    // Every entry of the share once per round, so that a slow spell of the machine falls on a few
    // runs of many entries rather than on all the runs of one: runs[entry][batch], the whole
    // model as entry n.
    std::vector<std::vector<std::vector<Duration>>> runs(n + 1, std::vector<std::vector<Duration>>(batches.size()));
    for (int round = 0; round < rounds; ++round)
      for (std::size_t bi = 0; bi < batches.size(); ++bi) {
        const int b = batches[bi];
        std::vector<std::uint64_t> ids(static_cast<std::size_t>(b));
        std::iota(ids.begin(), ids.end(), std::uint64_t{1});
        auto x = model.synthesize_input(ids);
        const auto where =
            ", batch " + std::to_string(b) + ", share " + table.share.to_string() +
            (rounds > 1 ? ", round " + std::to_string(round + 1) + " of " + std::to_string(rounds) : std::string());
        for (std::size_t k = 0; k <= n; ++k) {
          if (cancel && cancel->load()) {
            set_threads(saved_threads);
            throw Cancelled("profiling cancelled");
          }
          prog.what = (k < n ? "block " + std::to_string(k) : std::string("whole model")) + where;
          if (progress) progress(prog);
          auto policy = round_policy;
          if (round > 0) policy = RepeatPolicy::fixed(static_cast<int>(runs[k][bi].size()) / round, policy.warmup);
          const auto timing = time_with(policy, [&] {
            if (k < n)
              (void)model.run(k, k + 1, x);
            else
              (void)model.run_whole(x);
          });
          auto& pool = runs[k][bi];
          pool.insert(pool.end(), timing.runs.begin(), timing.runs.end());
          finished(timing, LatencyDistribution::of(timing.runs));
          // The next block's input; after the last block, the model's own for the whole of it.
          x = k + 1 < n ? model.run(k, k + 1, x) : model.synthesize_input(ids);
        }
      }
    // [block][batch]
    std::vector<std::vector<LatencyDistribution>> measured(n);
    for (std::size_t bi = 0; bi < batches.size(); ++bi) {
      const int b = batches[bi];
      Duration sum;
      const auto note_modes = [&](int block, const std::vector<Duration>& timed) {
        if (auto modes = two_modes(timed)) out.bimodal.push_back({table.share, b, block, *modes});
      };
      for (std::size_t k = 0; k < n; ++k) {
        const auto timing = pooled(runs[k][bi]);
        note_modes(static_cast<int>(k), timing.runs);
        measured[k].push_back(LatencyDistribution::of(timing.runs));
        sum += measured[k].back().median();
      }
      const auto timing = pooled(runs[n][bi]);
      note_modes(-1, timing.runs);
      const auto whole = LatencyDistribution::of(timing.runs);
      if (s == request.shares.front() && b == batches.front() && b == 1) whole_at_1 = whole.median();
      out.checks.push_back(
          {table.share, b, whole.median(), sum, timing.half_width, static_cast<int>(timing.runs.size())});
    }
    table = measured_block_table(table.gpu, table.share, batches, measured);
    p.block_tables.push_back(std::move(table));
  }
  if (request.contention && !on_gpu) {
    out.contention.gpu = out.device.id;
    out.contention.source = "servescope-cli profile, " + manifest.name;
    for (const auto& solo : out.checks) {
      const auto s = solo.share.mps_divisor().value_or(1);
      for (int k = 2; k <= s; ++k) {
        prog.what = std::to_string(k) + " slots of share " + solo.share.to_string() + " at once, batch " +
                    std::to_string(solo.batch);
        if (progress) progress(prog);
        if (cancel && cancel->load()) {
          set_threads(saved_threads);
          throw Cancelled("profiling cancelled");
        }
        const auto together = run_together(model, k, out.hardware_threads / s, solo.batch, time_entry);
        finished(together.timing, together.distribution);
        const double slowdown = together.distribution.median().to_s() / solo.whole_p50.to_s();
        out.contention.samples.push_back(
            {solo.share, solo.batch, k, std::max(1.0, slowdown), together.distribution.runs});
      }
    }
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
