// The LibTorch executor (README "Real models", Torch workers) runs a pipeline's stages on real
// tensors. Stage one on one worker, its real output as a feature map's bytes, stage two on another
// worker from them, and the final outputs checked against the whole model; a wrong feature map, a
// missing one, a model or blocks the worker lacks end the worker with the reason. Waits are bounded
// only to catch a hang; nothing here asserts how long a batch took.
#include "torchexec/torch_executor.h"

#include <poll.h>

#include <filesystem>
#include <gtest/gtest.h>
#include <thread>

#include "model/core/error.h"
#include "tests/torch/exported_models.h"

namespace servescope::torchexec {
namespace {

namespace live = engine::live;
using namespace std::chrono_literals;

std::shared_ptr<const TorchModel> load_resnet18() {
  static const auto model =
      std::make_shared<const TorchModel>(read_exported_model(::servescope::test::exported_resnet18()));
  return model;
}

live::WorkerAssignment assignment() {
  live::WorkerAssignment a;
  a.models = {"other-model", "resnet18"};
  a.slot_share = {{0, 1.0}, {1, 0.5}};
  return a;
}

// The reports of `count` batches, waiting on the executor's wake descriptor as the worker does.
std::vector<live::RunReport> wait_for(TorchExecutor& exec, std::size_t count) {
  std::vector<live::RunReport> all;
  const auto give_up = std::chrono::steady_clock::now() + 120s;  // a hang, not a slow machine
  while (all.size() < count && std::chrono::steady_clock::now() < give_up) {
    pollfd fd{exec.wake_fd(), POLLIN, 0};
    ::poll(&fd, 1, 100);
    for (auto& r : exec.finished(live::SteadyClock::now()))
      all.push_back(r);
  }
  return all;
}

live::RunOrder order(std::uint64_t batch, std::uint32_t slot, std::uint32_t begin, std::uint32_t end,
                     std::vector<std::uint64_t> requests) {
  return live::RunOrder{.batch = batch,
                        .slot = slot,
                        .model = 1,
                        .block_begin = begin,
                        .block_end = end,
                        .run_ns = 1000,
                        .requests = std::move(requests)};
}

live::SendOrder send_order(std::uint64_t transfer, std::vector<std::uint64_t> requests) {
  live::SendOrder o;
  o.transfer = transfer;
  o.model = 1;
  o.boundary = 1;
  o.requests = std::move(requests);
  return o;
}

class TorchExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(::servescope::test::exported_resnet18() / kExportedModelManifest))
      GTEST_SKIP() << "no exported model";
  }
  TorchExecutorOptions checking_all() const {
    TorchExecutorOptions o;
    o.check_every = 1;
    return o;
  }
};

TEST_F(TorchExecutorTest, APipelineAcrossTwoWorkersMatchesTheWholeModel) {
  TorchExecutor first({load_resnet18()}), second({load_resnet18()}, checking_all());
  first.assign(assignment());
  second.assign(assignment());
  const auto now = live::SteadyClock::now();
  first.submit(order(1, 0, 0, 1, {10, 11, 12}), now);
  first.submit(order(2, 1, 0, 1, {13}), now);
  const auto ran = wait_for(first, 2);
  ASSERT_EQ(ran.size(), 2u);
  for (const auto& r : ran)
    EXPECT_GE(r.run_ns, 0);
  // The next stage's batch mixes both batches' requests, in another order: one transfer each way
  // the scheduler may send them.
  const auto send = send_order(7, {13, 10});
  const auto bytes = first.feature_map(send);
  const auto cut = static_cast<std::uint64_t>(load_resnet18()->manifest().cut_bytes(1));
  EXPECT_EQ(bytes.size(), 2 * cut);
  EXPECT_EQ(first.feature_map_bytes(1, 1, 2), 2 * cut);
  second.received_feature_map(1, 1, {13, 10}, bytes);
  second.received_feature_map(1, 1, {11, 12}, first.feature_map(send_order(8, {11, 12})));
  // Taken once: the first worker no longer holds them.
  EXPECT_THROW(first.feature_map(send), live::ExecutorFailure);
  second.submit(order(3, 0, 1, 0, {12, 10, 13}), live::SteadyClock::now());  // block_end 0: to the end
  second.submit(order(4, 1, 1, 3, {11}), live::SteadyClock::now());
  ASSERT_EQ(wait_for(second, 2).size(), 2u);
  // Every final output was checked against the whole model on the same synthesised input.
  const auto give_up = std::chrono::steady_clock::now() + 120s;
  while (second.stats().checked < 4 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(10ms);
  EXPECT_NO_THROW(second.finished(live::SteadyClock::now()));
  const auto stats = second.stats();
  EXPECT_EQ(stats.checked, 4u);
  EXPECT_LE(stats.max_difference, 1e-4);
  EXPECT_EQ(stats.samples, 4u);
}

TEST_F(TorchExecutorTest, AWrongFeatureMapIsAnErrorNotALogLine) {
  TorchExecutor exec({load_resnet18()}, checking_all());
  exec.assign(assignment());
  const auto cut = static_cast<std::size_t>(load_resnet18()->manifest().cut_bytes(2));
  exec.received_feature_map(1, 2, {21}, std::vector<std::uint8_t>(cut, 0x3f));  // 0.75 everywhere
  exec.submit(order(1, 0, 2, 3, {21}), live::SteadyClock::now());
  try {
    const auto give_up = std::chrono::steady_clock::now() + 120s;
    while (std::chrono::steady_clock::now() < give_up) {
      (void)exec.finished(live::SteadyClock::now());
      std::this_thread::sleep_for(10ms);
    }
    FAIL() << "a wrong output was not reported";
  } catch (const live::ExecutorFailure& e) {
    EXPECT_NE(std::string(e.what()).find("request 21 of resnet18: its output differs"), std::string::npos) << e.what();
  }
}

TEST_F(TorchExecutorTest, WhatTheWorkerLacksStopsItWithTheReason) {
  TorchExecutor exec({load_resnet18()});
  exec.assign(assignment());
  const auto now = live::SteadyClock::now();
  auto unknown = order(1, 0, 0, 1, {1});
  unknown.model = 0;
  try {
    exec.submit(unknown, now);
    FAIL() << "a batch of a model without a folder was taken";
  } catch (const live::ExecutorFailure& e) {
    EXPECT_NE(std::string(e.what()).find("batch of other-model and this worker has no folder for it (--models "
                                         "gives resnet18)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(exec.submit(order(2, 0, 1, 9, {1}), now), live::ExecutorFailure);  // 3 blocks
  // A later stage whose input never came: the batch fails, naming the request.
  exec.submit(order(3, 0, 1, 3, {5}), now);
  try {
    (void)wait_for(exec, 1);
    FAIL() << "a batch without its input ran";
  } catch (const live::ExecutorFailure& e) {
    EXPECT_NE(std::string(e.what()).find("request 5 has no feature map at block 1"), std::string::npos) << e.what();
  }
  // Feature-map headers it cannot hold are refused on their size alone.
  EXPECT_FALSE(exec.feature_map_bytes(0, 1, 1));  // no folder
  EXPECT_FALSE(exec.feature_map_bytes(1, 0, 1));  // the input is synthesised, never sent
  EXPECT_FALSE(exec.feature_map_bytes(1, 3, 1));  // past the last cut
  EXPECT_THROW(TorchExecutor({load_resnet18(), load_resnet18()}), QueryError);
}

TEST_F(TorchExecutorTest, ClearGivesUpQueuedWork) {
  TorchExecutor exec({load_resnet18()});
  exec.assign(assignment());
  const auto now = live::SteadyClock::now();
  // Far in the future: still waiting for its start when cleared.
  auto later = order(1, 0, 0, 3, {1});
  later.start_in_ns = 3'600'000'000'000;
  exec.submit(later, now);
  exec.submit(order(2, 0, 0, 3, {2}), now);
  EXPECT_EQ(exec.queued(), 2u);
  exec.clear();
  const auto give_up = std::chrono::steady_clock::now() + 60s;
  while (exec.queued() > 0 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(5ms);
  EXPECT_EQ(exec.queued(), 0u);
  EXPECT_TRUE(exec.finished(live::SteadyClock::now()).empty());
}

}  // namespace
}  // namespace servescope::torchexec
