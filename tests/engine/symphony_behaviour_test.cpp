// Symphony digest §5 T7, T11, T12: the autoscaler formulas, and the two properties that make
// its advice trustworthy: load-proportional GPU use and a flat top under overload. ResNet50 with
// Table 2's profile (α 1.053 ms, β 5.072 ms, SLO 25 ms) on 8 GTX 1080 Ti, Poisson arrivals.
#include <algorithm>
#include <gtest/gtest.h>

#include "engine/serving/run_result_json.h"
#include "engine/symphony/autoscaler.h"
#include "engine/systems/scenario_simulation.h"
#include "engine/systems/symphony/symphony_options.h"
#include "model/core/error.h"
#include "tests/support/resnet50_fixture.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

constexpr double kStaggeredCapacity = 5839;  // Table 2

Scenario resnet50_on_8() {
  return test::resnet50_on_8(kStaggeredCapacity);
}

struct Outcome {
  RunSummary summary;
  std::vector<double> busy;
};

Outcome run(const std::string& system, double load, std::optional<BatchRule> rule = {},
            GpuPick pick = GpuPick::LowestId) {
  SimulationSpec spec;
  spec.system = system;
  spec.rate_rps = load * kStaggeredCapacity;
  spec.duration = Duration::seconds(30);
  spec.warmup = Duration::seconds(5);
  spec.seed = 7;
  spec.edit_options<SymphonyRunOptions>().batch_rule = rule;
  spec.edit_options<SymphonyRunOptions>().deferred.gpu_pick = pick;
  const auto r = simulate(resnet50_on_8(), spec);
  return {summarize_run(r), r.metrics->gpu_busy_fraction()};
}

}  // namespace

TEST(SymphonyT7, AutoscalerFormulas) {
  Autoscaler a;
  EXPECT_EQ(a.step(24, 0.2, 0.0).add, 6);
  Autoscaler b;
  const auto release = b.step(24, 0.0, 0.25);
  EXPECT_EQ(release.release, 6);
  EXPECT_EQ(release.add, 0);
  Autoscaler c;
  EXPECT_EQ(c.step(10, 0.5, 0.0).add, 10);
  // r = 1 would need infinitely many GPUs: clamped to 0.95.
  Autoscaler d;
  EXPECT_EQ(d.step(10, 1.0, 0.0).add, 190);
  // Below the threshold nothing is added; cooldown holds the next two windows.
  Autoscaler e;
  EXPECT_EQ(e.step(24, 0.005, 0.0).add, 0);
  EXPECT_EQ(e.step(24, 0.3, 0.0).add, 11);
  EXPECT_EQ(e.step(24, 0.3, 0.0).add, 0);
  EXPECT_EQ(e.step(24, 0.3, 0.0).add, 0);
  EXPECT_EQ(e.step(24, 0.3, 0.0).add, 11);
}

TEST(SymphonyT11, GpuUseIsProportionalToLoad) {
  for (double load : {0.2, 0.5}) {
    const auto lowest = run("symphony", load);
    EXPECT_NEAR(lowest.summary.mean_gpu_busy, load, 0.05) << load;
    EXPECT_GE(lowest.summary.median_batch, load < 0.3 ? 9 : 12) << load;
    // Lowest-id consolidates: the top ⌊N(1 − load)⌋ − 2 GPUs stay (almost) idle.
    const int idle = static_cast<int>(8 * (1 - load)) - 2;
    for (int g = 8 - idle; g < 8; ++g)
      EXPECT_LT(lowest.busy[static_cast<std::size_t>(g)], 0.01) << load << " GPU " << g;
    // Earliest-free spreads the same work evenly.
    const auto spread = run("symphony", load, {}, GpuPick::EarliestFree);
    EXPECT_NEAR(spread.summary.mean_gpu_busy, load, 0.05) << load;
    for (double b : spread.busy)
      EXPECT_NEAR(b, load, 0.1) << load;
    // Eager keeps every GPU busy with tiny batches.
    const auto eager = run("eager", load);
    EXPECT_GT(eager.summary.mean_gpu_busy, load + 0.25) << load;
    EXPECT_LE(eager.summary.median_batch, 2) << load;
  }
}

TEST(SymphonyT12, WindowDropHoldsAFlatTopWhereGreedyCollapses) {
  for (double load : {1.0, 1.2, 1.5}) {
    const auto window = run("symphony", load);
    EXPECT_GE(window.summary.goodput_rps, 0.9 * kStaggeredCapacity) << load;
    // Bad rate ≈ (o − p)/o when the top is flat.
    EXPECT_NEAR(window.summary.bad_rate, (load - 1.0) / load, 0.06) << load;
  }
  for (double load : {0.9, 1.0, 1.2, 1.5}) {
    const auto greedy = run("symphony", load, BatchRule::Greedy);
    EXPECT_LT(greedy.summary.goodput_rps, 2000) << load;
  }
  // Below capacity window drop serves essentially everything.
  EXPECT_LT(run("symphony", 0.9).summary.bad_rate, 0.02);
}

TEST(SymphonyAutoscaler, AdviceFromARun) {
  SimulationSpec spec;
  spec.rate_rps = 0.2 * kStaggeredCapacity;
  spec.duration = Duration::seconds(60);
  spec.utilisation_bin = Duration::milliseconds(100);
  const auto r = simulate(resnet50_on_8(), spec);
  AutoscalerOptions o;
  o.window = Duration::seconds(20);
  const auto advice = autoscaling_advice(*r.metrics, 8, o);
  ASSERT_EQ(advice.size(), 3u);
  // At 20 % load about 80 % of the GPU time is idle: release about six of eight GPUs.
  EXPECT_GE(advice[0].release, 5);
  EXPECT_EQ(advice[0].add, 0);
  EXPECT_EQ(advice[1].release, 0);  // cooldown
}

// A stop request ends a simulation with Cancelled instead of running it to its end; a spec
// nobody asks to stop runs as before.
TEST(Simulation, AStopRequestEndsItWithCancelled) {
  SimulationSpec spec;
  spec.system = "symphony";
  spec.rate_rps = 0.5 * kStaggeredCapacity;
  spec.duration = Duration::seconds(36000);  // ten hours: far longer than any test may wait
  std::stop_source stop;
  spec.stop = stop.get_token();
  stop.request_stop();
  EXPECT_THROW(simulate(resnet50_on_8(), spec), Cancelled);
  spec.duration = Duration::seconds(6);
  spec.stop = std::stop_source().get_token();
  EXPECT_NO_THROW(simulate(resnet50_on_8(), spec));
}
