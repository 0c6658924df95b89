// Symphony's three speed targets (BENCHMARKS.md "Symphony"; seed 002 Fig. 13 reports millions of
// requests/s):
//  - the scheduler alone, in process, 1,024 GPUs and 1,000 models (fake GPUs, in-process load
//    generator: the paper's "(s)" mode): requests scheduled per wall-second on one core;
//  - the simulator: simulated requests per wall-second, 37 A100 models on 64 GPUs;
//  - memory: peak RSS of a 10-minute simulated run at 30,000 req/s.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "engine/serving/run_result_json.h"
#include "engine/systems/scenario_simulation.h"
#include "model/io/document.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

Scenario demo_mixed() {
  auto s = load_project("builtin:projects/demo.json").scenario;
  std::erase_if(s.workloads, [](const Workload& w) { return w.name != "mixed-37"; });
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
