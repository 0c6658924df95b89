// A data plane's controller as a resource (controller_cost.h; issue 25 part 3): with zero cost
// the wrapper only measures and the run is the same run; every event is charged exactly once;
// a controller slower than the events it must handle makes requests wait and miss their SLO,
// and more cores take the waiting away. ResNet50 with Symphony's Table 2 profile on 8 GTX 1080 Ti.
#include "engine/dataplane/controller_cost.h"

#include <gtest/gtest.h>

#include "engine/serving/run_result_json.h"
#include "engine/systems/scenario_simulation.h"
#include "model/core/error.h"
#include "tests/support/resnet50_fixture.h"

using namespace servescope;
using namespace servescope::engine;

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
