// cudaexec/ on a real GPU (ctest label gpu; each test skips with the CUDA runtime's reason where
// there is none). What issue 27's "Done when" asks of a lent GPU, as assertions that hold under
// any load: calibrated work within 5 % of each target, two 50 % slots running at the same time
// under MPS, feature maps whole through device → host → device. The figures (BENCHMARKS.md,
// docs/reproduction/fidelity.md) come from bench/gpu/run_gpu_checks.sh.
#include <cstring>
#include <gtest/gtest.h>
#include <iostream>

#include "cudaexec/cuda_slot_device.h"
#include "cudaexec/gpu_query.h"
#include "engine/gpu/work_calibration.h"
#include "engine/gpuexec/corun_measurement.h"
#include "engine/gpuexec/slot_process.h"
#include "tests/support/test_support.h"

namespace servescope::cudaexec {
namespace {

#define REQUIRE_GPU() \
  if (const auto why = no_gpu_reason(); !why.empty()) GTEST_SKIP() << "no GPU here: " << why

TEST(CudaDevice, ListsTheGpusWithTheirFigures) {
  REQUIRE_GPU();
  const auto inventory = query_gpus();
  ASSERT_FALSE(inventory.devices.empty());
  for (const auto& d : inventory.devices) {
    EXPECT_GT(d.sm_count, 0);
    EXPECT_GT(d.memory_bytes, 0u);
    EXPECT_GT(d.sm_clock_mhz, 0);
    const auto entry = engine::gpu::catalog_entry(d);
    EXPECT_GT(entry.memory_bandwidth_gbs, 0) << d.name;
    std::cout << engine::gpu::to_text(inventory);
  }
}

TEST(CudaDevice, CalibratedWorkLandsWithinFivePercentOfEachTarget) {
  REQUIRE_GPU();
  CudaSlotDevice device;
  auto calibration = engine::gpu::WorkCalibration::measure(device);
  std::cout << device.describe() << ": a GEMM " << calibration.gemm().per_unit_ns / 1e3 << " us, stream "
            << 1 / calibration.stream().per_unit_ns << " GB/s\n";
  for (const double fraction : {0.0, 0.5, 0.7, 1.0})
    for (const std::int64_t target : {150'000, 420'000, 1'000'000, 2'700'000, 9'000'000, 35'000'000}) {
      const auto check = calibration.tune(device, target, fraction);
      // A fresh median of the tuned recipe, not the tuner's own best.
      const auto again = engine::gpu::median_run_ns(device, check.recipe, 9);
      const double error = std::abs(static_cast<double>(again - target)) / static_cast<double>(target);
      std::cout << "target " << static_cast<double>(target) / 1e3 << " us, compute " << fraction << ": "
                << static_cast<double>(again) / 1e3 << " us (" << 100 * error << " %)\n";
      EXPECT_LE(error, 0.05) << "target " << target << " ns, compute fraction " << fraction;
    }
}

TEST(CudaDevice, FeatureMapsComeBackWhole) {
  REQUIRE_GPU();
  CudaSlotDevice device;
  std::vector<std::uint8_t> input(3 << 20);
  for (std::size_t i = 0; i < input.size(); ++i)
    input[i] = static_cast<std::uint8_t>(i * 13);
  EXPECT_GT(device.upload(input), 0);
  device.run_ns({2, 1 << 20});
  // The stream writes each float as x·0.999 + 1 of a zeroed buffer: the first pass leaves 1.0f.
  std::vector<std::uint8_t> output(1 << 20);
  EXPECT_GT(device.download(7, output), 0);
  float first = 0;
  std::memcpy(&first, output.data(), sizeof first);
  EXPECT_GE(first, 1.0f);
}

TEST(CudaDevice, TwoHalfSlotsRunAtOnceUnderMps) {
  REQUIRE_GPU();
  const auto inventory = query_gpus();
  if (!inventory.mps.running) GTEST_SKIP() << "MPS is not running here: " << inventory.mps.detail;
  const auto slot = [](int percent) {
    return engine::gpuexec::SlotCommand{
        {test::program_beside_or("servescope-cuda", SERVESCOPE_CUDA_PROGRAM), "live", "slot", "--gpu", "0"},
        {{"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(percent)}}};
  };
  engine::gpuexec::SlotProcess a(slot(50), std::chrono::minutes(2)), b(slot(50), std::chrono::minutes(2));
  a.wait_ready();
  b.wait_ready();
  const engine::gpu::WorkRecipe recipe{40, 64 << 20};
  const auto tag_a = a.start_timing(recipe, 200), tag_b = b.start_timing(recipe, 200);
  const auto ta = a.timed(tag_a), tb = b.timed(tag_b);
  const double overlap = engine::gpuexec::busy_overlap(ta.runs, tb.runs);
  std::cout << a.ready().device << " and " << b.ready().device << ": busy together " << 100 * overlap
            << " % of the first one's time\n";
  EXPECT_GE(overlap, 0.8);
}

}  // namespace
}  // namespace servescope::cudaexec
