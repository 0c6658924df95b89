// Symphony's three speed targets (BENCHMARKS.md "Symphony"; seed 002 Fig. 13 reports millions of
// requests/s):
//  - the scheduler alone, in process, 1,024 GPUs and 1,000 models (fake GPUs, in-process load
//    generator: the paper's "(s)" mode): requests scheduled per wall-second on one core;
//  - the simulator: simulated requests per wall-second, 37 A100 models on 64 GPUs;
//  - memory: peak RSS of a 10-minute simulated run at 30,000 req/s;
//  - the simulator again on the same models as measured profiles (issue 46): each a block table
//    keeping its distribution, batches drawn from it, beside the same profiles at their medians.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "engine/serving/run_result_json.h"
#include "engine/systems/scenario_simulation.h"
#include "model/io/document.h"
#include "model/profile/measured_table.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

Scenario demo_mixed() {
  auto s = load_project("builtin:projects/demo.json").scenario;
  std::erase_if(s.workloads, [](const Workload& w) { return w.name != "mixed-37"; });
  return s;
}

// The demo's models as `profile` writes measured ones: each linear fit a one-block table over its
// batch sizes (at most 64) whose entries keep a distribution with a right tail around the
// fit's latency (p5 0.9×, p99 1.3×, p99.9 1.6×), so every batch is drawn through
// BatchLatency::sample. With a contention model for the A100 (inert on whole GPUs: one slot per
// device), so the run pays for looking it up too.
Scenario demo_measured() {
  auto s = demo_mixed();
  static constexpr double kSpread[] = {0.90, 0.93, 0.96, 1.00, 1.04, 1.10, 1.15, 1.30, 1.60};
  for (auto& m : s.profiles.models) {
    ModelProfile measured;
    measured.name = m.name;
    measured.default_slo = m.default_slo;
    measured.form = ProfileForm::Blocks;
    for (const auto& [gpu, share] : m.configurations()) {
      const int top = std::min(64, m.max_batch(gpu, share));
      std::vector<int> batches;
      std::vector<LatencyDistribution> row;
      for (int b = 1; b <= top; ++b) {
        const auto median = m.latency({gpu, share, b, std::nullopt});
        LatencyDistribution d;
        d.runs = 50;
        for (const double f : kSpread)
          d.quantiles.push_back(Duration::nanoseconds(std::llround(static_cast<double>(median.count_ns()) * f)));
        batches.push_back(b);
        row.push_back(std::move(d));
      }
      measured.block_tables.push_back(measured_block_table(gpu, share, batches, {row}));
    }
    m = std::move(measured);
  }
  s.profiles.contention.push_back({"A100", {{GpuShare::mps(2), 8, 2, 1.4, 50}}, "bench", ""});
  return s;
}

// 1,000 models cycled from the 37 A100 profiles (renamed), equal popularity, on 1,024 A100s.
Scenario thousand_models() {
  auto base = demo_mixed();
  Scenario s;
  s.name = "1000 models on 1024 GPUs";
  s.cluster.nodes.push_back({"a100", "A100", 8, 128, 100, 100, std::nullopt});
  Workload w{"all", 1, PoissonArrivals{}, {}, Popularity::Equal, 0.9};
  for (int i = 0; i < 1000; ++i) {
    auto p = base.profiles.models[static_cast<std::size_t>(i) % base.profiles.models.size()];
    p.name += "#" + std::to_string(i);
    p.origin.clear();
    w.targets.push_back({TargetKind::Model, p.name, 1.0, std::nullopt});
    s.profiles.models.push_back(std::move(p));
  }
  s.workloads.push_back(std::move(w));
  return s;
}

// Requests per wall-second over all iterations (kIsRate divides the sum by the total time).
void report(benchmark::State& state, const SimulationResult& r, double& total_requests) {
  total_requests += static_cast<double>(r.sim.arrivals);
  state.counters["requests_per_run"] = static_cast<double>(r.sim.arrivals);
  state.counters["requests_per_second"] = benchmark::Counter(total_requests, benchmark::Counter::kIsRate);
  const auto s = summarize_run(r);
  state.counters["slo_attainment"] = s.slo_attainment;
  state.counters["median_batch"] = s.median_batch;
}

// Counts outcomes and nothing else: the scheduler-only mode measures scheduling, not metrics.
struct CountingRecorder final : RunRecorder {
  std::uint64_t completed = 0, dropped = 0;
  void on_drop(const Request&, DropReason, Time) override { ++dropped; }
  void on_complete(const Request&, Time, Time) override { ++completed; }
};

void BM_SchedulerThousandModels(benchmark::State& state) {
  const auto scenario = thousand_models();
  SimulationSpec spec;
  const auto setup = prepare_simulation(scenario, spec);
  const double rate = 0.7 * nominal_capacity_rps(setup);
  const Time until = Duration::seconds(2);
  double total = 0;
  std::uint64_t completed = 0, dropped = 0;
  for (auto _ : state) {
    auto streams = setup.streams;
    for (auto& st : streams)
      st.rate_rps *= rate / setup.workload_rate_rps;
    WorkloadArrivals arrivals(std::move(streams), until, 1);
    auto plane = make_data_plane("symphony", setup, spec);
    std::vector<BatchLatency> exec;
    for (const auto& m : setup.models)
      exec.push_back(m.latency);
    CountingRecorder counts;
    Simulator sim(setup.gpus.size(), ExecutionTimes::uniform(std::move(exec), setup.gpus.size()), arrivals, *plane,
                  counts);
    sim.run();
    total += static_cast<double>(sim.stats().arrivals);
    completed += counts.completed;
    dropped += counts.dropped;
  }
  state.counters["requests_per_second"] = benchmark::Counter(total, benchmark::Counter::kIsRate);
  state.counters["served_fraction"] = static_cast<double>(completed) / static_cast<double>(completed + dropped);
}
BENCHMARK(BM_SchedulerThousandModels)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3);

void BM_SimulatorMixed37On64(benchmark::State& state) {
  const auto scenario = demo_mixed();
  SimulationSpec spec;
  spec.rate_rps = 15000;
  spec.duration = Duration::seconds(60);
  double total = 0;
  for (auto _ : state) {
    const auto r = simulate(scenario, spec);
    report(state, r, total);
  }
}
BENCHMARK(BM_SimulatorMixed37On64)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3);

// The same run on measured profiles: arg 0 at their medians (--runtime exact), arg 1 drawn from
// their distributions (the default). Issue 46's target: the second keeps ≥ 75 % of the first's
// speed. Planned at p99 both ways, so the two plans are the same.
void BM_SimulatorMixed37On64Measured(benchmark::State& state) {
  const auto scenario = demo_measured();
  SimulationSpec spec;
  spec.rate_rps = 15000;
  spec.duration = Duration::seconds(60);
  spec.exact_runtime = state.range(0) == 0;
  double total = 0;
  for (auto _ : state) {
    const auto r = simulate(scenario, spec);
    if (r.sampled_runtime == spec.exact_runtime) state.SkipWithError("the run did not sample as asked");
    report(state, r, total);
  }
}
BENCHMARK(BM_SimulatorMixed37On64Measured)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3);

void BM_TenMinutesAt30k(benchmark::State& state) {
  const auto scenario = demo_mixed();
  SimulationSpec spec;
  spec.rate_rps = 30000;
  spec.duration = Duration::seconds(600);
  double total = 0;
  for (auto _ : state) {
    const auto r = simulate(scenario, spec);
    report(state, r, total);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["peak_rss_mib"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
}
BENCHMARK(BM_TenMinutesAt30k)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
