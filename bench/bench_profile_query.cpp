// Profile lookups sit in every planner's inner loop (PPipe evaluates partition latencies for
// every column, glet for every glet size and batch); this measures one query of each form.
#include <benchmark/benchmark.h>

#include "model/profile/model_profile.h"

using namespace servescope;

namespace {

ModelProfile blocks_profile() {
  ModelProfile p;
  p.name = "synthetic";
  p.form = ProfileForm::Blocks;
  p.block_count = 10;
  p.boundary_bytes.assign(9, 1 << 20);
  BlockTable t{"V100", GpuShare::whole(), {}, {}, {}};
  for (int b = 0; b < 10; ++b) {
    std::vector<Duration> l;
    for (int batch = 1; batch <= 8; ++batch)
      l.push_back(Duration::microseconds(300 * batch + 100 * b));
    t.blocks.emplace_back(batch_range(8), l);
  }
  p.block_tables.push_back(std::move(t));
  return p;
}

void BM_BlockRangeLatency(benchmark::State& state) {
  const auto p = blocks_profile();
  int batch = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(p.latency({"V100", GpuShare::whole(), batch, BlockRange{2, 9}}));
    batch = batch % 8 + 1;
  }
}
BENCHMARK(BM_BlockRangeLatency);

void BM_LinearLatency(benchmark::State& state) {
  ModelProfile p;
  p.name = "linear";
  p.form = ProfileForm::Linear;
  p.linear_fits.push_back({"A100", GpuShare::whole(), Duration::microseconds(268), Duration::microseconds(5172), 0});
  int batch = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(p.latency({"A100", GpuShare::whole(), batch, std::nullopt}));
    batch = batch % 64 + 1;
  }
}
BENCHMARK(BM_LinearLatency);

void BM_InterpolatedTableLatency(benchmark::State& state) {
  ModelProfile p;
  p.name = "table";
  p.form = ProfileForm::Table;
  p.batch_tables.push_back(
      {"RTX2080Ti", GpuShare::percent(40),
       BatchCurve({1, 2, 4, 8, 16, 32},
                  {Duration::microseconds(2000), Duration::microseconds(2600), Duration::microseconds(3800),
                   Duration::microseconds(6100), Duration::microseconds(11000), Duration::microseconds(21000)})});
  int batch = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(p.latency({"RTX2080Ti", GpuShare::percent(40), batch, std::nullopt}));
    batch = batch % 32 + 1;
  }
}
BENCHMARK(BM_InterpolatedTableLatency);

}  // namespace

BENCHMARK_MAIN();
