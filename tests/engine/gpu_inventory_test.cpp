// This machine's GPUs as `gpu list` reports them (engine/gpu/gpu_inventory.h), from device
// figures as cudart gives them: the catalog entry's derived peaks against the built-in catalog's
// datasheet figures, adding and updating a catalog, and MPS's state from its pipe folder.
#include "engine/gpu/gpu_inventory.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/test_support.h"

namespace servescope::engine::gpu {
namespace {

// What cudart says about an H100 SXM5 (NVML's maximum SM clock 1980 MHz).
GpuDevice h100() {
  GpuDevice d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.pci_bus_id = "0000:17:00.0";
  d.compute_major = 9;
  d.compute_minor = 0;
  d.sm_count = 132;
  d.memory_bytes = 85'017'214'976;
  d.sm_clock_mhz = 1980;
  d.memory_clock_mhz = 2619;
  d.memory_bus_bits = 5120;
  d.l2_bytes = 50 << 20;
  d.compute_mode = "default";
  return d;
}

TEST(GpuInventory, DerivedPeaksMatchTheDatasheet) {
  const auto entry = catalog_entry(h100());
  const auto* sheet = GpuCatalog::builtin().find("H100");
  ASSERT_NE(sheet, nullptr);
  EXPECT_EQ(entry.id, "H100-80GB-HBM3");
  EXPECT_EQ(entry.architecture, "Hopper");
  EXPECT_EQ(entry.sm_count, sheet->sm_count);
  EXPECT_TRUE(entry.mps);
  // 132 SMs × 128 lanes × 2 × 1.98 GHz; the datasheet's 67 TFLOPS is at its boost clock.
  EXPECT_NEAR(entry.fp32_tflops, sheet->fp32_tflops, 0.02 * sheet->fp32_tflops);
  EXPECT_NEAR(entry.memory_bandwidth_gbs, sheet->memory_bandwidth_gbs, 0.01 * sheet->memory_bandwidth_gbs);
  EXPECT_NEAR(entry.memory_gib, 79.18, 0.01);
  // The tensor-core rate at the maximum clock is above the datasheet's (it quotes 1.83 GHz).
  EXPECT_NEAR(entry.fp16_tflops, sheet->fp16_tflops * 1980 / 1830, 0.01 * sheet->fp16_tflops);
}

TEST(GpuInventory, AnUnknownArchitectureLeavesItsPeaksUnknown) {
  auto d = h100();
  d.compute_major = 42;
  const auto entry = catalog_entry(d);
  EXPECT_EQ(entry.architecture, "sm_420");
  EXPECT_EQ(entry.fp32_tflops, 0);
  EXPECT_EQ(entry.fp16_tflops, 0);
  EXPECT_GT(entry.memory_bandwidth_gbs, 0);
  EXPECT_FALSE(known(entry, GpuFigure::Fp32Tflops));
}

TEST(GpuInventory, UpdatesTheMatchingTypeAndAddsANewOne) {
  GpuCatalog catalog;
  GpuSpec mine;
  mine.id = "H100";
  mine.aliases = {"NVIDIA H100 80GB HBM3"};
  mine.price_per_hour = 9.8;
  mine.sm_count = 1;
  catalog.add_or_replace(mine);
  const auto updated = update_catalog(catalog, h100());
  EXPECT_FALSE(updated.added);
  EXPECT_EQ(updated.id, "H100");
  const auto* entry = catalog.find("H100");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->sm_count, 132);
  EXPECT_EQ(entry->price_per_hour, 9.8) << "what the device cannot say is kept";
  EXPECT_EQ(entry->aliases, std::vector<std::string>{"NVIDIA H100 80GB HBM3"});

  GpuCatalog empty;
  const auto added = update_catalog(empty, h100());
  EXPECT_TRUE(added.added);
  ASSERT_EQ(empty.gpus().size(), 1u);
  EXPECT_EQ(empty.gpus()[0].name, "NVIDIA H100 80GB HBM3");
  // Run again: the same type is updated, not added twice.
  EXPECT_FALSE(update_catalog(empty, h100()).added);
  EXPECT_EQ(empty.gpus().size(), 1u);
}

TEST(GpuInventory, MpsIsRunningOnlyWhenItsControlSocketAccepts) {
  const test::TempDir scratch;
  const auto& dir = scratch.path();
  const auto absent = mps_status(dir.string());
  EXPECT_FALSE(absent.running);
  EXPECT_FALSE(absent.stale);
  EXPECT_NE(absent.detail.find("nvidia-cuda-mps-control -d"), std::string::npos) << absent.detail;

  // A plain file is not the daemon's socket.
  { std::ofstream(dir / "control") << "x"; }
  EXPECT_FALSE(mps_status(dir.string()).running);
  std::filesystem::remove(dir / "control");

  const int fd = test::bound_unix_socket(dir / "control", true);
  const auto running = mps_status(dir.string());
  EXPECT_TRUE(running.running) << running.detail;
  EXPECT_FALSE(running.stale);
  EXPECT_EQ(running.pipe_directory, dir);

  // The daemon is gone and its socket stays: stale, not running, and the report says so.
  ::close(fd);
  ASSERT_TRUE(std::filesystem::is_socket(dir / "control"));
  const auto stale = mps_status(dir.string());
  EXPECT_FALSE(stale.running);
  EXPECT_TRUE(stale.stale);
  EXPECT_NE(stale.detail.find("stale control socket"), std::string::npos) << stale.detail;
  EXPECT_NE(stale.detail.find("Connection refused"), std::string::npos) << stale.detail;
  EXPECT_EQ(mps_status(std::nullopt).pipe_directory, "/tmp/nvidia-mps");
}

TEST(GpuInventory, ReportsEveryFigure) {
  GpuInventory inv;
  inv.runtime_version = 13000;
  inv.driver_version = "580.65.06";
  inv.devices.push_back(h100());
  inv.devices.back().max_sm_clock_mhz = 1980;
  inv.devices.back().power_limit_w = 700;
  inv.mps.detail = "no control daemon";
  const auto j = to_json(inv);
  EXPECT_EQ(j["devices"][0]["sm_count"], 132);
  EXPECT_EQ(j["devices"][0]["compute_capability"], "9.0");
  EXPECT_EQ(j["devices"][0]["catalog_entry"]["id"], "H100-80GB-HBM3");
  EXPECT_EQ(j["mps"]["running"], false);
  const auto text = to_text(inv);
  for (const auto* part : {"1 GPU;", "CUDA runtime 13.0", "driver 580.65.06", "NVIDIA H100 80GB HBM3",
                           "132 SMs at 1980 MHz", "Hopper", "power limit 700 W", "MPS: not running"})
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
}

}  // namespace
}  // namespace servescope::engine::gpu
