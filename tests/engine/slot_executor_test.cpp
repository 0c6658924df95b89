// The worker's GPU executor (engine/gpuexec/slot_executor.h) with real slot processes on the
// model GPU (tests/support/fake_slot_main.cpp): one process per slot at its share, batches in
// order with their start delays, times the devices measured, feature maps from one slot's device
// to the network and into the next stage's input, and failures that say what failed.
#include "engine/gpuexec/slot_executor.h"

#include <poll.h>

#include <algorithm>
#include <gtest/gtest.h>
#include <thread>

#include "tests/support/model_gpu.h"

namespace servescope::engine::gpuexec {
namespace {

using live::RunOrder;
using live::RunReport;
using live::SteadyClock;

SlotCommand fake_slot(std::uint32_t, double share, std::vector<std::pair<std::string, std::string>> env = {}) {
  env.emplace_back("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(static_cast<int>(share * 100)));
  return SlotCommand{{SERVESCOPE_FAKE_SLOT}, std::move(env)};
}

SlotExecutorOptions options() {
  SlotExecutorOptions o;
  o.slot_command = [](std::uint32_t slot, double share) { return fake_slot(slot, share); };
  o.ready_within = std::chrono::seconds(60);
  return o;
}

RunOrder order(std::uint64_t batch, std::uint32_t slot, std::int64_t run_ns,
               std::vector<std::uint64_t> requests = {1}) {
  RunOrder o;
  o.batch = batch;
  o.slot = slot;
  o.run_ns = run_ns;
  o.requests = std::move(requests);
  return o;
}

// A model in `cuts.size() + 1` blocks whose cuts carry these bytes per sample.
ProfileSet blocks_profile(std::vector<std::int64_t> cuts) {
  ModelProfile m;
  m.name = "m";
  m.form = ProfileForm::Blocks;
  m.block_count = static_cast<int>(cuts.size()) + 1;
  m.boundary_bytes = std::move(cuts);
  ProfileSet profiles;
  profiles.models.push_back(m);
  return profiles;
}

// Waits on the executor's wake descriptor until `count` batches are reported (or 30 s pass).
std::vector<RunReport> wait_reports(SlotExecutor& executor, std::size_t count) {
  std::vector<RunReport> out;
  const auto deadline = SteadyClock::now() + std::chrono::seconds(30);
  while (out.size() < count && SteadyClock::now() < deadline) {
    pollfd fd{executor.wake_fd(), POLLIN, 0};
    int timeout_ms = 100;
    if (const auto next = executor.next_event())
      timeout_ms = static_cast<int>(std::clamp<std::int64_t>(
          std::chrono::duration_cast<std::chrono::milliseconds>(*next - SteadyClock::now()).count(), 0, 100));
    ::poll(&fd, 1, timeout_ms);
    for (auto& r : executor.finished(SteadyClock::now()))
      out.push_back(r);
  }
  return out;
}

TEST(SlotExecutor, RunsEachSlotInItsOwnProcessAtItsShare) {
  SlotExecutor executor(options());
  executor.assign({{"m"}, {{0, 0.5}, {1, 0.5}}});
  EXPECT_EQ(executor.stats().slots_started, 2u) << "started without waiting";
  executor.wait_ready();
  const auto slots = executor.slots();
  ASSERT_EQ(slots.size(), 2u);
  EXPECT_EQ(slots.at(0).device, "model GPU");
  // Each slot calibrated under its own share: half the threads, twice the time per GEMM.
  EXPECT_NEAR(slots.at(0).gemm.per_unit_ns, 2 * 9'000, 0.1 * 2 * 9'000);

  // The same profiled time again and again: the first batches run the lines' estimate, the slot
  // then tunes its recipe on them, and the rest land within 5 %.
  constexpr int kBatches = 12;
  for (int i = 0; i < kBatches; ++i) {
    executor.submit(order(static_cast<std::uint64_t>(i), static_cast<std::uint32_t>(i % 2), 2'700'000),
                    SteadyClock::now());
  }
  const auto reports = wait_reports(executor, kBatches);
  ASSERT_EQ(reports.size(), static_cast<std::size_t>(kBatches));
  std::vector<std::uint64_t> seen;
  for (const auto& r : reports) {
    seen.push_back(r.batch);
    EXPECT_EQ(r.slot, r.batch % 2);
  }
  std::ranges::sort(seen);
  for (int i = 0; i < kBatches; ++i)
    EXPECT_EQ(seen[static_cast<std::size_t>(i)], static_cast<std::uint64_t>(i));
  // Each slot's fifth and sixth batch (a slot runs its batches in order, whichever slot reports first).
  for (const auto& r : reports) {
    if (r.batch < kBatches - 4) continue;
    EXPECT_NEAR(static_cast<double>(r.run_ns), 2'700'000, 0.05 * 2'700'000) << "batch " << r.batch;
  }
  EXPECT_EQ(executor.queued(), 0u);
  EXPECT_EQ(executor.stats().batches, static_cast<std::uint64_t>(kBatches));
}

TEST(SlotExecutor, HoldsABatchUntilItsStartDelayHasPassed) {
  SlotExecutor executor(options());
  executor.assign({{"m"}, {{0, 1.0}}});
  executor.wait_ready();
  const auto at = SteadyClock::now();
  auto delayed = order(1, 0, 100'000);
  delayed.start_in_ns = 300'000'000;  // 0.3 s
  executor.submit(delayed, at);
  ASSERT_TRUE(executor.next_event().has_value());
  EXPECT_EQ(*executor.next_event(), at + std::chrono::milliseconds(300));
  EXPECT_TRUE(executor.finished(at).empty());
  EXPECT_EQ(executor.queued(), 1u);
  const auto reports = wait_reports(executor, 1);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_GE(SteadyClock::now(), at + std::chrono::milliseconds(300));
}

TEST(SlotExecutor, AChangedShareIsANewProcessAndClearGivesUpTheRunningBatch) {
  SlotExecutor executor(options());
  executor.assign({{"m"}, {{0, 0.5}}});
  executor.assign({{"m"}, {{0, 0.5}}});
  EXPECT_EQ(executor.stats().slots_started, 1u);
  executor.assign({{"m"}, {{0, 0.25}}});
  EXPECT_EQ(executor.stats().slots_started, 2u);
  executor.wait_ready();
  EXPECT_NEAR(executor.slots().at(0).gemm.per_unit_ns, 4 * 9'000, 0.1 * 4 * 9'000);

  executor.submit(order(1, 0, 50'000'000), SteadyClock::now());
  executor.submit(order(2, 0, 50'000'000), SteadyClock::now());
  executor.clear();
  EXPECT_EQ(executor.queued(), 0u);
  executor.submit(order(3, 0, 1'000'000), SteadyClock::now());
  const auto reports = wait_reports(executor, 1);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].batch, 3u) << "the given-up batch is not reported";
}

// Two stages of a model on two workers' slots: the first's output comes device → host with its
// report, the send hands it to the network, the second worker receives it and its batch copies
// it in.
TEST(SlotExecutor, FeatureMapsGoFromTheDeviceToTheNetworkAndIntoTheNextStage) {
  auto o = options();
  o.profiles = blocks_profile({1000, 640});
  SlotExecutor first(o), second(o);
  first.assign({{"m"}, {{0, 1.0}}});
  second.assign({{"m"}, {{0, 1.0}}});
  EXPECT_TRUE(first.real_feature_maps());
  EXPECT_EQ(second.feature_map_bytes(0, 1, 3), 3000u);
  EXPECT_EQ(second.feature_map_bytes(0, 3, 1), std::nullopt) << "no cut after the last block";

  auto stage1 = order(7, 0, 200'000, {100, 101, 102});
  stage1.block_end = 1;
  first.submit(stage1, SteadyClock::now());
  ASSERT_EQ(wait_reports(first, 1).size(), 1u);

  // Request 101 goes alone to one place, 100 and 102 together to another.
  live::SendOrder send;
  send.model = 0;
  send.boundary = 1;
  send.requests = {101};
  const auto alone = first.feature_map(send);
  ASSERT_EQ(alone.size(), 1000u);
  for (std::size_t i = 0; i < alone.size(); ++i)
    ASSERT_EQ(alone[i], test::ModelGpu::pattern(7, 1000 + i)) << i;
  send.requests = {100, 102};
  const auto pair = first.feature_map(send);
  ASSERT_EQ(pair.size(), 2000u);
  EXPECT_EQ(pair[0], test::ModelGpu::pattern(7, 0));
  EXPECT_EQ(pair[1000], test::ModelGpu::pattern(7, 2000));
  EXPECT_EQ(first.stats().maps_fetched, 1u) << "the batch's output is copied to the host once";
  EXPECT_THROW(first.feature_map(send), live::ExecutorFailure) << "each sample goes once";

  second.received_feature_map(0, 1, {100, 102}, pair);
  second.received_feature_map(0, 1, {101}, alone);
  auto stage2 = order(8, 0, 200'000, {101, 100});
  stage2.block_begin = 1;
  second.submit(stage2, SteadyClock::now());
  ASSERT_EQ(wait_reports(second, 1).size(), 1u);
  EXPECT_EQ(second.stats().maps_uploaded, 1u);

  auto orphan = order(9, 0, 200'000, {555});
  orphan.block_begin = 1;
  EXPECT_THROW(second.submit(orphan, SteadyClock::now()), live::ExecutorFailure);
}

TEST(SlotExecutor, OrdersWaitForTheirSlotToCalibrate) {
  SlotExecutor executor(options());
  executor.assign({{"m"}, {{0, 1.0}}});
  executor.submit(order(1, 0, 100'000), SteadyClock::now());  // before the slot said it is ready
  const auto reports = wait_reports(executor, 1);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(executor.slots().size(), 1u);
}

// Samples nobody sends (their requests were dropped between stages) are let go: the executor
// cannot grow without bound on a long run.
TEST(SlotExecutor, SamplesNobodyTakesAreLetGo) {
  auto o = options();
  o.profiles = blocks_profile({100});
  o.keep_maps = std::chrono::seconds(0);
  SlotExecutor executor(o);
  executor.assign({{"m"}, {{0, 1.0}}});
  executor.received_feature_map(0, 1, {5}, std::vector<std::uint8_t>(100, 1));
  auto stage1 = order(1, 0, 100'000, {7, 8});
  stage1.block_end = 1;
  executor.submit(stage1, SteadyClock::now());
  ASSERT_EQ(wait_reports(executor, 1).size(), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // letting go is checked once a second
  executor.finished(SteadyClock::now());
  EXPECT_EQ(executor.stats().maps_forgotten, 3u) << "two produced samples and one received";
  live::SendOrder send;
  send.boundary = 1;
  send.requests = {7};
  EXPECT_THROW(executor.feature_map(send), live::ExecutorFailure);
}

TEST(SlotExecutor, ASlotThatFailsSaysWhy) {
  auto o = options();
  o.slot_command = [](std::uint32_t slot, double share) {
    return fake_slot(slot, share, {{"FAKE_SLOT_FAIL", "cudaSetDevice failed: cudaErrorNoDevice"}});
  };
  SlotExecutor executor(o);
  try {
    executor.assign({{"m"}, {{0, 0.5}}});
    executor.wait_ready();
    FAIL() << "a failing slot was accepted";
  } catch (const live::ExecutorFailure& e) {
    EXPECT_NE(std::string(e.what()).find("cudaErrorNoDevice"), std::string::npos) << e.what();
  }
  o.slot_command = [](std::uint32_t, double) { return SlotCommand{{"/nonexistent/servescope-cuda"}, {}}; };
  SlotExecutor missing(o);
  try {
    missing.assign({{"m"}, {{0, 0.5}}});
    FAIL() << "a missing program was accepted";
  } catch (const live::ExecutorFailure& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/servescope-cuda"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace servescope::engine::gpuexec
