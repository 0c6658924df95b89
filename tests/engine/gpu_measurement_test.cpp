// measure-interference's co-runs (engine/gpuexec/corun_measurement.h) and profiles from
// calibrated kernels (engine/gpuexec/kernel_profiler.h), on slot processes of the model GPU
// (tests/support/fake_slot_main.cpp): the MPS share a slot was started with shows in every time
// it measures, the rows are the CSV fit-interference reads, and the features order the workloads.
#include <cmath>
#include <gtest/gtest.h>
#include <map>

#include "engine/estimate/cnn_architectures.h"
#include "engine/glet/interference_fit.h"
#include "engine/gpuexec/corun_measurement.h"
#include "engine/gpuexec/kernel_profiler.h"
#include "model/core/error.h"
#include "model/io/csv_reader.h"

namespace servescope::engine::gpuexec {
namespace {

SlotCommand measuring_slot(int percent) {
  return SlotCommand{{SERVESCOPE_FAKE_SLOT}, {{"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(percent)}}};
}

TEST(CorunMeasurement, OverlapIsTheSharedPartOfOneSidesBusyTime) {
  const std::vector<TimedRun> a{{0, 100, 90}, {100, 200, 90}};
  EXPECT_DOUBLE_EQ(busy_overlap(a, {{50, 150, 0}}), 0.5);
  EXPECT_DOUBLE_EQ(busy_overlap(a, {{0, 300, 0}}), 1.0);
  EXPECT_DOUBLE_EQ(busy_overlap(a, {{200, 300, 0}}), 0.0);
  EXPECT_DOUBLE_EQ(busy_overlap(a, {{10, 20, 0}, {150, 160, 0}}), 0.1);
  EXPECT_DOUBLE_EQ(busy_overlap({}, a), 0.0);
}

TEST(CorunMeasurement, MeasuresEveryPairOnEverySplitWithItsFeatures) {
  CorunOptions o;
  o.slot_command = measuring_slot;
  o.gpu = "model";
  o.batches = {2, 8};
  o.sizes = {20, 50};
  o.window = std::chrono::milliseconds(5);
  std::vector<std::size_t> rows_seen;  // what a run stopped after each co-run would have left
  o.rows_so_far = [&](const std::vector<CorunRow>& rows) { rows_seen.push_back(rows.size()); };
  const auto result = measure_coruns(o);
  EXPECT_EQ(result.device, "model GPU");
  // 5 workloads × 2 batches = 10 kinds; 20:80 both ways round: 10 × 8 ordered pairs; 50:50 is its
  // own mirror: half of them. Two rows (one per side) per co-run.
  EXPECT_EQ(result.rows.size(), 2u * (10 * 8 + 10 * 8 / 2));
  ASSERT_EQ(rows_seen.size(), result.rows.size() / 2);
  for (std::size_t i = 0; i < rows_seen.size(); ++i)
    EXPECT_EQ(rows_seen[i], 2 * (i + 1));
  for (const auto& r : result.rows) {
    EXPECT_NE(r.model, r.other_model);
    EXPECT_EQ(r.size_percent + r.other_size_percent, 100);
    EXPECT_GE(r.overlap, 0.0);
    EXPECT_LE(r.overlap, 1.0);
    // Every time here is the model GPU's arithmetic on the recipe (no clock, no noise), so these
    // hold whatever the machine's load; which runs overlapped (the host clock) only picks among
    // equal values. The model shares no L2 or DRAM between processes: no slowdown at all.
    EXPECT_DOUBLE_EQ(r.corun_ms, r.solo_ms) << r.model << " beside " << r.other_model;
    // Tuned to 0.2 ms a sample on the whole GPU (within the tuner's 2 %); a 20 % slot takes five
    // times as long.
    EXPECT_NEAR(r.solo_ms, r.batch * 0.2 * 100.0 / r.size_percent, 0.05 * r.batch * 0.2 * 100.0 / r.size_percent)
        << r.model << " at " << r.size_percent << " %";
  }
  ASSERT_EQ(result.utilisation.size(), 5u);
  std::map<std::string, UtilisationSample> at8;
  for (const auto& u : result.utilisation) {
    EXPECT_EQ(u.gpu, "model");
    ASSERT_EQ(u.samples.size(), 2u);
    at8[u.model] = u.samples[1];
  }
  EXPECT_EQ(at8["compute"].dram_util, 0.0);
  EXPECT_GT(at8["memory"].dram_util, 0.4);
  EXPECT_GT(at8["memory"].dram_util, at8["memory-heavy"].dram_util);
  EXPECT_GT(at8["memory-heavy"].dram_util, at8["mixed"].dram_util);
  EXPECT_GT(at8["compute"].sm_util, at8["mixed"].sm_util);

  // The CSV is what fit-interference reads, and the rows with these features fit.
  const auto csv = coruns_csv(result.rows);
  const CsvDocument doc(csv, "coruns.csv");
  ASSERT_EQ(doc.rows().size(), result.rows.size() + 1);
  const auto fit = fit_coruns(result, "model");
  EXPECT_NEAR(fit.model.constant, 1.0, 0.05);
  EXPECT_LT(fit.error_quantile(0.95), 0.02);
}

TEST(CorunMeasurement, RefusesAPartitionThatIsNotTheSmallerSide) {
  CorunOptions o;
  o.slot_command = measuring_slot;
  o.sizes = {80};
  EXPECT_THROW(measure_coruns(o), QueryError);
}

TEST(KernelProfiler, ComputeBoundLayersBecomeGemmsAndTheRestAStream) {
  const auto graph = resnet(50);
  const auto* h100 = GpuCatalog::builtin().find("H100");
  ASSERT_NE(h100, nullptr);
  const auto rates = device_rates(*h100, Precision::Fp16, 1);
  const double gemm_flops = 2.0 * 256 * 256 * 256;
  int convolutions = 0, pools = 0;
  for (int l = 0; l < graph.size(); ++l) {
    const auto& layer = graph.layers()[static_cast<std::size_t>(l)];
    const auto r = block_work(graph, l, l + 1, 8, rates, gemm_flops, 4096);
    EXPECT_EQ(r.stream_bytes % 4096, 0);
    EXPECT_TRUE(r.gemms > 0 || r.stream_bytes > 0) << layer.name;
    const auto t = layer_time(graph, l, 8, rates);
    if (t.compute_us >= t.memory_us) {
      EXPECT_EQ(r.gemms, std::llround(layer.flops * 8 / gemm_flops)) << layer.name;
      ++convolutions;
    } else {
      EXPECT_EQ(r.gemms, 0) << layer.name;
      ++pools;
    }
  }
  EXPECT_GT(convolutions, 10);
  EXPECT_GT(pools, 10);
  // A block is the sum of its layers.
  const auto all = block_work(graph, 0, graph.size(), 8, rates, gemm_flops, 4096);
  EXPECT_NEAR(static_cast<double>(all.gemms), graph.total_flops() * 8 / gemm_flops,
              0.35 * graph.total_flops() * 8 / gemm_flops);
}

TEST(KernelProfiler, MeasuresEveryBlockBatchAndShareOnItsOwnSlot) {
  KernelProfileOptions o;
  o.slot_command = measuring_slot;
  o.gpu = *GpuCatalog::builtin().find("H100");
  o.repeats = 5;
  const auto profile = profile_with_kernels(resnet(50), "ResNet-50", o);
  ASSERT_EQ(profile.block_tables.size(), 4u);  // shares 1, 1/2, 1/3, 1/4
  EXPECT_EQ(profile.blocks(), 10);
  EXPECT_NE(profile.description.find("calibrated kernels"), std::string::npos);
  for (const auto& table : profile.block_tables) {
    ASSERT_EQ(table.blocks.size(), 10u);
    ASSERT_EQ(table.p99.size(), 10u);
    for (std::size_t n = 0; n < table.blocks.size(); ++n)
      for (std::size_t i = 0; i < table.blocks[n].latency().size(); ++i)
        EXPECT_GE(table.p99[n].latency()[i], table.blocks[n].latency()[i]);
  }
  // The slot at 1/2 of the threads runs the same work twice as long (the model GPU's MPS).
  const auto whole = profile.latency({"H100", GpuShare::whole(), 2, BlockRange{0, 10}});
  const auto half = profile.latency({"H100", GpuShare::mps(2), 2, BlockRange{0, 10}});
  EXPECT_NEAR(half.to_ms() / whole.to_ms(), 2.0, 0.1);
  // More samples, more work.
  EXPECT_GT(profile.latency({"H100", GpuShare::whole(), 8, BlockRange{0, 10}}), whole);
}

}  // namespace
}  // namespace servescope::engine::gpuexec
