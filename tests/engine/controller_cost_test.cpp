// A data plane's controller as a resource (controller_cost.h; issue 25 part 3): with zero cost
// the wrapper only measures and the run is the same run; every event is charged exactly once;
// a controller slower than the events it must handle makes requests wait and miss their SLO,
// and more cores take the waiting away. ResNet50 with Symphony's Table 2 profile on 8 GTX 1080 Ti.
#include "engine/dataplane/controller_cost.h"

#include <gtest/gtest.h>

#include "engine/serving/run_result_json.h"
#include "engine/systems/scenario_simulation.h"
#include "model/core/error.h"
#include "tests/support/durations.h"
#include "tests/support/resnet50_fixture.h"

using namespace servescope;
using namespace servescope::engine;
using servescope::test::us;

namespace {

SimulationResult run(const std::string& system, std::optional<ControllerCost> controller, double rate = 3000) {
  SimulationSpec spec;
  spec.system = system;
  spec.duration = Duration::seconds(5);
  spec.warmup = Duration::seconds(1);
  spec.seed = 3;
  spec.controller = controller;
  return simulate(test::resnet50_on_8(rate), spec);
}

}  // namespace

TEST(ControllerCost, FreeControllerOnlyMeasuresAndChangesNothing) {
  for (const auto* system : {"symphony", "clockwork", "nexus"}) {
    const auto plain = run(system, std::nullopt);
    const auto measured = run(system, ControllerCost{1, Duration()});
    const auto a = summarize_run(plain), b = summarize_run(measured);
    EXPECT_EQ(a.arrivals, b.arrivals) << system;
    EXPECT_EQ(a.on_time, b.on_time) << system;
    EXPECT_EQ(plain.sim.batches, measured.sim.batches) << system;
    ASSERT_TRUE(measured.controller) << system;
    EXPECT_FALSE(plain.controller);
    // At least every request and every batch completion went through the controller.
    EXPECT_GE(measured.controller->events, plain.sim.arrivals + plain.sim.batches) << system;
    // Waits are simulated time, deterministic for the seed; the handlers' wall time is measured
    // by repro_symphony (BENCHMARKS.md), never asserted here.
    EXPECT_EQ(measured.controller->max_wait, Duration()) << system;
  }
}

TEST(ControllerCost, ASaturatedControllerMakesRequestsWaitAndMoreCoresHelp) {
  // 3000 req/s and a batch completion every few ms: at 200 µs per event one core is busy more
  // than 60 % of the time on requests alone, and Symphony's timers come on top.
  const auto free = summarize_run(run("symphony", std::nullopt));
  const auto one = run("symphony", ControllerCost{1, Duration::microseconds(300)});
  const auto four = run("symphony", ControllerCost{4, Duration::microseconds(300)});
  ASSERT_TRUE(one.controller && four.controller);
  // Simulated time, the same on any machine: a controller behind by more than a millisecond.
  EXPECT_GT(one.controller->max_wait, Duration::milliseconds(1));
  EXPECT_LT(four.controller->total_wait, one.controller->total_wait);
  const auto s1 = summarize_run(one), s4 = summarize_run(four);
  EXPECT_LT(s1.slo_attainment, free.slo_attainment);
  EXPECT_GT(s4.slo_attainment, s1.slo_attainment);
}

TEST(ControllerCost, RefusesNonsense) {
  EXPECT_THROW(run("symphony", ControllerCost{0, Duration::microseconds(1)}), QueryError);
  EXPECT_THROW(run("symphony", ControllerCost{1, Duration::microseconds(-1)}), QueryError);
}

namespace {

// A world of one clock, driven by hand, for what the wrapper delivers and when.
class HandClock final : public Clock, public Executor, public OutcomeSink {
 public:
  Time now() const override { return now_; }
  TimerId create_timer(std::uint64_t token) override {
    timers_.push_back({token, std::nullopt, 0});
    return static_cast<TimerId>(timers_.size() - 1);
  }
  void arm(TimerId timer, Time at) override { timers_[timer].at = at, timers_[timer].seq = ++seq_; }
  void disarm(TimerId timer) override { timers_[timer].at.reset(); }
  void execute(Batch) override {}
  bool preempt(BatchId, std::uint32_t) override { return false; }
  void transfer(Transfer) override {}
  void dropped(const Request&, DropReason) override {}
  void completed(const Request&, Time, Time) override {}

  // Fires every timer due by `t` in time order, then stands at `t`.
  void run_until(Time t, DataPlane& plane) {
    for (;;) {
      Timer* next = nullptr;
      for (auto& timer : timers_)
        if (timer.at && *timer.at <= t && (!next || std::pair(*timer.at, timer.seq) < std::pair(*next->at, next->seq)))
          next = &timer;
      if (!next) break;
      now_ = *next->at;
      next->at.reset();
      plane.on_timer(next->token);
    }
    now_ = t;
  }

 private:
  struct Timer {
    std::uint64_t token;
    std::optional<Time> at;
    std::uint64_t seq;
  };
  std::vector<Timer> timers_;
  Time now_;
  std::uint64_t seq_ = 0;
};

// Arms its one timer at 10 ms; the request with id 1 moves it to 100 ms. Logs what it hears when.
class LoggingPlane final : public DataPlane {
 public:
  std::vector<std::pair<std::string, Time>> heard;
  std::string name() const override { return "logging"; }
  void start(DataPlaneContext& context) override {
    ctx_ = &context;
    timer_ = context.clock.create_timer(7);
    context.clock.arm(timer_, Duration::milliseconds(10));
  }
  void on_request(const Request& r) override {
    heard.emplace_back("request", ctx_->clock.now());
    if (r.id == 1) ctx_->clock.arm(timer_, Duration::milliseconds(100));
  }
  void on_timer(std::uint64_t token) override {
    heard.emplace_back("timer " + std::to_string(token), ctx_->clock.now());
  }
  void on_batch_done(const BatchDone&) override { heard.emplace_back("batch done", ctx_->clock.now()); }

 private:
  DataPlaneContext* ctx_ = nullptr;
  TimerId timer_ = 0;
};

LatencyDistribution always(Duration d) {
  return {std::vector<Duration>(kDistributionLevels.size(), d), 100};
}

}  // namespace

TEST(ControllerLateness, TimersAndBatchEndsArriveLateRequestsAtOnceAndAMovedTimerNeverAtItsOldTime) {
  HandClock world;
  auto inner = std::make_unique<LoggingPlane>();
  auto& log = inner->heard;
  CostedDataPlane plane(std::move(inner), ControllerCost{.lateness = always(Duration::milliseconds(1))});
  DataPlaneContext context{world, world, world};
  plane.start(context);
  world.run_until(Duration::microseconds(10'500), plane);  // the timer fired at 10 ms, due to the plane at 11
  Request moves;
  moves.id = 1;
  plane.on_request(moves);  // heard at once; it moves the timer to 100 ms
  world.run_until(Duration::milliseconds(50), plane);
  plane.on_batch_done(BatchDone{});
  world.run_until(Duration::milliseconds(200), plane);
  const std::vector<std::pair<std::string, Time>> expected{{"request", Duration::microseconds(10'500)},
                                                           {"batch done", Duration::milliseconds(51)},
                                                           {"timer 7", Duration::milliseconds(101)}};
  EXPECT_EQ(log, expected);
  // Late by exactly the drawn delay, never queued behind another event.
  EXPECT_EQ(plane.stats().max_wait, Duration::milliseconds(1));
}

TEST(ControllerLateness, NoLatenessChangesNothingAndLateDecisionsCostSymphonyRequests) {
  // Symphony defers each batch to its last moment, so a controller that decides late finds heads
  // it can no longer serve; the same lateness drawn from a distribution, seeded, is repeatable.
  const auto free = run("symphony", std::nullopt, 2000);
  const auto zero = run("symphony", ControllerCost{.lateness = always(Duration())}, 2000);
  EXPECT_EQ(summarize_run(zero).on_time, summarize_run(free).on_time);
  EXPECT_EQ(zero.sim.batches, free.sim.batches);
  LatencyDistribution measured{{us(20), us(30), us(60), us(150), us(260), us(500), us(700), us(1400), us(2500)}, 300};
  const auto late = run("symphony", ControllerCost{.lateness = measured, .lateness_seed = 3}, 2000);
  const auto again = run("symphony", ControllerCost{.lateness = measured, .lateness_seed = 3}, 2000);
  EXPECT_LT(summarize_run(late).on_time, summarize_run(free).on_time);
  EXPECT_EQ(summarize_run(late).on_time, summarize_run(again).on_time);
  ASSERT_TRUE(late.controller);
  // Late by a draw and never queued: no event waited longer than the largest recorded delay.
  EXPECT_LE(late.controller->max_wait, measured.quantiles.back());
  // Charged as work on one core, events wait in line: one waited longer than its own CPU time.
  const auto charged = run("symphony", ControllerCost{1, Duration::microseconds(300)}, 2000);
  EXPECT_GT(charged.controller->max_wait, charged.controller->cost.per_event);
}

TEST(ControllerLateness, RefusesNegativeDelays) {
  EXPECT_THROW(run("symphony", ControllerCost{.lateness = always(Duration::microseconds(-1))}), QueryError);
}
