// Cost-planner speed (Piccolo seed 001 §5.3, Harpagon seed 004 §4.7; BENCHMARKS.md): planning
// time per workload for Harpagon and Piccolo on seeded random workloads of 2, 3 and 4 modules
// (engine/cost/random_workload.h), target ≤ 1 ms per workload (papers: 8 ms and 5 ms in Python),
// and the exact brute force on the same workloads, over every configuration (Piccolo's space) and
// over concurrency 1 only (Harpagon's) (papers: 10.29 s and 35.9 s). Each module count
// uses a fixed set of 50 workloads: the first 50 seeds from 1 on that give it. An iteration plans
// the whole set; the per_workload counter is the time of one workload.
#include <benchmark/benchmark.h>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/cost/brute_force.h"
#include "engine/cost/random_workload.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

constexpr std::size_t kWorkloads = 50;

// The first 50 workloads of each module count: the papers' kind, or the audit's
// (RandomWorkloadOptions::audit(): up to 96 configurations per module).
std::vector<std::vector<CostProblem>> make_sets(const RandomWorkloadOptions& options) {
  std::vector<std::vector<CostProblem>> out(5);
  for (std::uint64_t seed = 1; out[2].size() < kWorkloads || out[3].size() < kWorkloads || out[4].size() < kWorkloads;
       ++seed) {
    auto p = random_cost_problem(seed, options);
    auto& set = out[p.modules.size()];
    if (set.size() < kWorkloads) set.push_back(std::move(p));
  }
  return out;
}

const std::vector<CostProblem>& workloads(std::size_t modules, bool audit = false) {
  static const auto papers = make_sets({});
  static const auto audits = make_sets(RandomWorkloadOptions::audit());
  return (audit ? audits : papers)[modules];
}

void per_workload(benchmark::State& state, std::size_t count) {
  state.counters["per_workload"] = benchmark::Counter(
      static_cast<double>(count), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void plan_set(benchmark::State& state, const char* system, bool audit = false) {
  const auto& set = workloads(static_cast<std::size_t>(state.range(0)), audit);
  const auto options = cost_plan_preset(system);
  int feasible = 0;
  double cost = 0;
  for (auto _ : state) {
    feasible = 0;
    cost = 0;
    for (const auto& p : set) {
      const auto plan = plan_cost(p, options);
      feasible += plan.feasible;
      cost += plan.cost;
      benchmark::DoNotOptimize(plan);
    }
  }
  per_workload(state, set.size());
  state.counters["feasible"] = feasible;
  state.counters["total_cost"] = cost;
}

void BM_Harpagon(benchmark::State& state) {
  plan_set(state, "harpagon");
}
BENCHMARK(BM_Harpagon)->ArgName("modules")->DenseRange(2, 4)->Unit(benchmark::kMillisecond);

void BM_Piccolo(benchmark::State& state) {
  plan_set(state, "piccolo");
}
BENCHMARK(BM_Piccolo)->ArgName("modules")->DenseRange(2, 4)->Unit(benchmark::kMillisecond);

// The papers' algorithms without our pairwise exchange and one-configuration plans.
void BM_HarpagonAsPublished(benchmark::State& state) {
  plan_set(state, "harpagon-paper");
}
BENCHMARK(BM_HarpagonAsPublished)->ArgName("modules")->DenseRange(2, 4)->Unit(benchmark::kMillisecond);

void BM_PiccoloAsPublished(benchmark::State& state) {
  plan_set(state, "piccolo-paper");
}
BENCHMARK(BM_PiccoloAsPublished)->ArgName("modules")->DenseRange(2, 4)->Unit(benchmark::kMillisecond);

// The audit's workloads: a third GPU type, irregular batch lists, MPS shares up to 1/4.
void BM_HarpagonAudit(benchmark::State& state) {
  plan_set(state, "harpagon", true);
}
BENCHMARK(BM_HarpagonAudit)->ArgName("modules")->DenseRange(2, 4)->Unit(benchmark::kMillisecond);

void BM_PiccoloAudit(benchmark::State& state) {
  plan_set(state, "piccolo", true);
}
BENCHMARK(BM_PiccoloAudit)->ArgName("modules")->DenseRange(2, 4)->Unit(benchmark::kMillisecond);

// Nexus's quantized split on a 4-module diamond with a 13 s SLO (1,300 quanta of 10 ms): 308 s
// when the split walked every step.
void BM_NexusLongSloDiamond(benchmark::State& state) {
  CostProblem p;
  for (std::uint64_t seed = 1;; ++seed) {
    p = random_cost_problem(seed);
    if (p.edges.size() == 4) break;
  }
  p.slo = Duration::seconds(13);
  const auto options = cost_plan_preset("nexus");
  for (auto _ : state) {
    const auto plan = plan_cost(p, options);
    benchmark::DoNotOptimize(plan);
    state.counters["feasible"] = plan.feasible;
  }
}
BENCHMARK(BM_NexusLongSloDiamond)->Unit(benchmark::kMillisecond);

// The exact optimum on the same workloads: over every configuration (the space Piccolo plans
// in), or without the concurrency-2 ones (Harpagon's space, batch × hardware).
void brute_force_set(benchmark::State& state, bool spatial) {
  auto set = workloads(static_cast<std::size_t>(state.range(0)));
  if (!spatial)
    for (auto& p : set)
      for (auto& m : p.modules) {
        std::erase_if(m.configs, [](const CostConfig& c) { return c.concurrency != 1; });
        sort_configs(m.configs, m.rate_rps);
      }
  double nodes = 0, incomplete = 0, cost = 0;
  for (auto _ : state) {
    nodes = incomplete = cost = 0;
    for (const auto& p : set) {
      BruteForceStats stats;
      const auto plan = plan_brute_force(p, {}, &stats);
      nodes += static_cast<double>(stats.nodes);
      incomplete += stats.complete ? 0 : 1;
      cost += plan.cost;
      benchmark::DoNotOptimize(plan);
    }
  }
  per_workload(state, set.size());
  state.counters["nodes_per_workload"] = nodes / static_cast<double>(set.size());
  state.counters["incomplete"] = incomplete;
  state.counters["total_cost"] = cost;
}

void BM_BruteForce(benchmark::State& state) {
  brute_force_set(state, true);
}
BENCHMARK(BM_BruteForce)->ArgName("modules")->DenseRange(2, 4)->Unit(benchmark::kMillisecond);

void BM_BruteForceConcurrency1(benchmark::State& state) {
  brute_force_set(state, false);
}
BENCHMARK(BM_BruteForceConcurrency1)->ArgName("modules")->DenseRange(2, 4)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
