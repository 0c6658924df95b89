// Inputs that used to make a simulation run for ever with growing memory (docs/formats.md
// "Files from elsewhere"): a stream whose rate is all but zero, and offered rates no simulation can
// hold. The first ends with no arrivals; the second is refused before anything runs, naming what is
// too large.
#include <gtest/gtest.h>

#include "engine/sim/arrival_source.h"
#include "engine/systems/scenario_simulation.h"
#include "model/core/error.h"
#include "model/io/document.h"

namespace servescope::engine {
namespace {

TEST(RunawayInputs, AStreamAtAVanishingRateEndsInsteadOfWrappingAround) {
  std::vector<ArrivalStream> streams;
  streams.push_back(ArrivalStream{0, 0, Duration::milliseconds(10), 1e-300, PoissonArrivals{}, {}});
  streams.push_back(ArrivalStream{0, 1, Duration::milliseconds(10), 1e-300, GammaArrivals{0.5}, {}});
  PiecewiseArrivals piecewise;
  piecewise.segments = {RateSegment{Duration::seconds(1), 1e-300}, RateSegment{Duration::seconds(1), 1.0}};
  streams.push_back(ArrivalStream{0, 2, Duration::milliseconds(10), 1e-290, piecewise, {}});
  streams.push_back(ArrivalStream{0, 3, Duration::milliseconds(10), 100, PoissonArrivals{}, {}});
  WorkloadArrivals arrivals(std::move(streams), Duration::seconds(10), 7);
  std::size_t count = 0;
  Time last;
  while (const auto a = arrivals.next()) {
    ASSERT_GE(a->at, last) << "arrivals went back in time";
    ASSERT_LT(a->at, Duration::seconds(10));  // simulated time: arrivals stop at `until`
    EXPECT_EQ(a->target, 3u) << "a stream at 1e-300 req/s arrived";
    last = a->at;
    ASSERT_LT(++count, 10'000u) << "the stream did not end";
  }
  EXPECT_GT(count, 500u);  // the one real stream: about 1000 arrivals in 10 s
}

TEST(RunawayInputs, ARunThatWouldOfferMoreRequestsThanASimulationHoldsIsRefused) {
  const auto project = load_project("builtin:projects/demo.json");
  SimulationSpec spec;
  spec.rate_rps = 1e7;
  spec.duration = Duration::seconds(60);
  try {
    simulate(project.scenario, spec);
    FAIL() << "accepted 6e8 requests";
  } catch (const QueryError& e) {
    EXPECT_NE(std::string(e.what()).find("would offer about 600000000 requests"), std::string::npos) << e.what();
  }
  spec.rate_rps = 4e9;
  EXPECT_THROW(simulate(project.scenario, spec), QueryError);
}

}  // namespace
}  // namespace servescope::engine
