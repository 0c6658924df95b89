// Contention between slots of one device in the simulator (issue 46): while k slots of a device
// run, each batch advances at 1 / slowdown of its pace alone, and is re-timed at every start and
// end on its device. Checked on hand-computed virtual times.
#include "engine/sim/slot_contention.h"

#include <gtest/gtest.h>

#include "engine/sim/simulator.h"
#include "tests/support/durations.h"

namespace servescope::engine {
namespace {

using test::ms;

// Each request alone on the GPU its model names, started at its arrival plus that GPU's delay.
class OnePerGpu final : public DataPlane {
 public:
  explicit OnePerGpu(std::vector<Duration> delay = {}) : delay_(std::move(delay)) {}
  std::string name() const override { return "one-per-gpu"; }
  void start(DataPlaneContext& context) override { ctx_ = &context; }
  void on_request(const Request& r) override {
    Batch b;
    b.id = next_++;
    b.gpu = r.model;
    b.model = r.model;
    b.start = ctx_->clock.now() + (r.model < delay_.size() ? delay_[r.model] : Duration());
    b.requests = {r};
    ctx_->executor.execute(std::move(b));
  }
  void on_timer(std::uint64_t) override {}
  void on_batch_done(const BatchDone&) override {}

 private:
  std::vector<Duration> delay_;
  DataPlaneContext* ctx_ = nullptr;
  BatchId next_ = 1;
};

// Three GPUs, every batch 10 ms alone; GPUs 0 and 1 share device 0, GPU 2 is device 1 alone.
// Two busy slots of a device run at half pace.
struct Run {
  std::vector<TimelineSpan> spans;
};
Run run(std::vector<Arrival> arrivals, std::vector<Duration> delay = {}, bool contention = true) {
  const auto ten = BatchLatency::linear(Duration(), ms(10), 8);
  ExecutionTimes times({{ten}, {ten}, {ten}}, {0, 0, 0});
  ListArrivals source(std::move(arrivals));
  OnePerGpu plane(std::move(delay));
  TimelineRecorder timeline;
  Simulator sim(3, std::move(times), source, plane, timeline);
  if (contention) sim.set_contention({0, 0, 1}, [](std::uint32_t, int, int slots) { return slots >= 2 ? 2.0 : 1.0; });
  sim.run();
  return {timeline.spans_by_start()};
}

Arrival at(double t_ms, std::uint32_t model) {
  return {ms(t_ms), model, model, ms(1000)};
}

TEST(SlotContention, TwoSlotsOfOneDeviceRunningTogetherBothTakeTheSlowedTime) {
  const auto r = run({at(0, 0), at(0, 1)});
  ASSERT_EQ(r.spans.size(), 2u);
  for (const auto& s : r.spans) {
    EXPECT_EQ(s.start, ms(0));
    EXPECT_EQ(s.end, ms(20));
  }
}

TEST(SlotContention, ABatchIsSlowedOnlyWhileAnotherRunsBesideIt) {
  // A alone 0-5 ms (half its work); then both at half pace: A's other 5 ms of work take until 15,
  // when B has done 5 ms of its own; B's last 5 ms alone, to 20.
  const auto r = run({at(0, 0), at(5, 1)});
  ASSERT_EQ(r.spans.size(), 2u);
  EXPECT_EQ(r.spans[0].gpu, 0u);
  EXPECT_EQ(r.spans[0].end, ms(15));
  EXPECT_EQ(r.spans[1].start, ms(5));
  EXPECT_EQ(r.spans[1].end, ms(20));
}

TEST(SlotContention, SlotsOfOtherDevicesAndRunsWithoutContentionAreNotSlowed) {
  const auto apart = run({at(0, 0), at(0, 2)});
  for (const auto& s : apart.spans)
    EXPECT_EQ(s.end, ms(10)) << "GPU " << s.gpu;
  const auto off = run({at(0, 0), at(0, 1)}, {}, false);
  for (const auto& s : off.spans)
    EXPECT_EQ(s.end, ms(10)) << "GPU " << s.gpu;
}

TEST(SlotContention, ABatchDispatchedToStartLaterSlowsItsNeighbourOnlyFromItsStart) {
  // GPU 1's batch is dispatched at 0 to start at 4 ms: A runs alone until then.
  const auto r = run({at(0, 0), at(0, 1)}, {Duration(), ms(4)});
  ASSERT_EQ(r.spans.size(), 2u);
  EXPECT_EQ(r.spans[0].end, ms(16));  // 4 ms alone, then its 6 ms left at half pace
  EXPECT_EQ(r.spans[1].start, ms(4));
  EXPECT_EQ(r.spans[1].end, ms(20));  // 12 ms at half pace (6 ms of work), its 4 ms left alone
}

TEST(SlotContention, BindsEachSlotToItsDevicesMeasuredModelByTypeAndShare) {
  ProfileSet profiles;
  profiles.contention.push_back(
      {"cpu-x", {{GpuShare::mps(2), 1, 2, 1.8, 40}, {GpuShare::mps(2), 4, 2, 1.2, 40}}, "", ""});
  RunLayout layout;
  layout.gpus = {"s0/v0", "s0/v1", "s1/v0", "g/gpu0", "g/gpu1"};
  layout.gpu_types = {"cpu-x", "cpu-x", "cpu-x", "V100", "V100"};
  layout.gpu_shares = {"1/2", "1/2", "1", "1/2", "1/2"};
  layout.gpu_physical = {0, 0, 1, 2, 2};
  const SlotContention c(profiles, layout);
  EXPECT_TRUE(c.any());
  EXPECT_EQ(c.device(), (std::vector<std::uint32_t>{0, 0, 1, 2, 2}));
  EXPECT_DOUBLE_EQ(c.slowdown(0, 1, 2), 1.8);
  EXPECT_DOUBLE_EQ(c.slowdown(1, 4, 2), 1.2);
  EXPECT_DOUBLE_EQ(c.slowdown(1, 4, 1), 1.0);
  EXPECT_DOUBLE_EQ(c.slowdown(3, 1, 2), 1.0) << "V100 has no measured contention";

  RunLayout alone = layout;
  alone.gpu_physical = {0, 1, 2, 3, 3};  // the measured type's slots each alone on a device
  EXPECT_FALSE(SlotContention(profiles, alone).any());
}

}  // namespace
}  // namespace servescope::engine
