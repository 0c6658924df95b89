// gpu-let's periodic rescheduling (seed 003 §4.6; digest §4.10, TC8, TC16) over a sequence of
// periods: first schedule, no change inside the triggers, incremental re-placement of a risen
// model around the others, full repartition with fewer GPUs after a fall, and revert at the limit.
#include "engine/glet/glet_rescheduler.h"

#include <gtest/gtest.h>
#include <iostream>
#include <map>

#include "model/core/error.h"
#include "tests/support/glet_fixture.h"
#include "tests/support/glet_layout_checker.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

struct Fixture {
  ModelProfile a = test::affine_glet_profile("A", 2), b = test::affine_glet_profile("B", 3, 0.5);
  // The schedule in force re-checked at the targets it was made for.
  std::vector<std::string> check(const GletRescheduler& r) const {
    const auto lo = test::toy_latency_options();
    const GletLatency lat({{&a, nullptr, r.targets()[0], Duration::milliseconds(100), {}},
                           {&b, nullptr, r.targets()[1], Duration::milliseconds(60), {}}},
                          lo);
    return test::check_glet_layout(lat, r.schedule().layout, 1e-6);
  }
  GletRescheduler rescheduler() const {
    const auto lo = test::toy_latency_options();
    const auto po = test::exact_planner_options();
    return GletRescheduler(
        {{&a, nullptr, 0, Duration::milliseconds(100), {}}, {&b, nullptr, 0, Duration::milliseconds(60), {}}}, lo, po,
        4);
  }
};

// Every glet of `model` in the layout, as (GPU, glet index, rate).
std::vector<std::tuple<std::size_t, std::size_t, double>> glets_of(const GletLayout& l, int model) {
  std::vector<std::tuple<std::size_t, std::size_t, double>> out;
  for (std::size_t g = 0; g < l.gpus.size(); ++g)
    for (std::size_t k = 0; k < l.gpus[g].glets.size(); ++k)
      for (const auto& a : l.gpus[g].glets[k].models)
        if (a.model == model) out.emplace_back(g, k, a.rate_rps);
  return out;
}

}  // namespace

TEST(GletRescheduler, PeriodsFollowTheTriggersAndScaleBothWays) {
  const Fixture f;
  auto r = f.rescheduler();
  // Period 1: 1,000 and 400 req/s measured → targets 1,200 and 480; the first schedule.
  auto d = r.on_period({1000, 400});
  EXPECT_TRUE(d.changed);
  EXPECT_DOUBLE_EQ(r.targets()[0], 1200);
  EXPECT_DOUBLE_EQ(r.targets()[1], 480);
  const int first_gpus = d.gpus;
  EXPECT_GE(first_gpus, 1);
  EXPECT_DOUBLE_EQ(r.schedule().models[0].rate_rps, 1200);
  EXPECT_EQ(f.check(r), std::vector<std::string>{});
  std::cout << d.how << " on " << d.gpus << " GPUs\n";

  // Period 2: +3 % on A (target +36 req/s > 10 req/s) would trigger; +0.5 % (6 req/s) does not.
  d = r.on_period({1005, 400});
  EXPECT_FALSE(d.changed);
  EXPECT_EQ(d.how, "kept");

  // Period 3: B rises to 600 (target 720, +50 %): B is re-placed, A's glets stay where they were.
  const auto a_before = glets_of(r.schedule().layout, 0);
  d = r.on_period({1000, 600});
  EXPECT_TRUE(d.changed);
  EXPECT_EQ(d.need, RescheduleNeed::Incremental);
  EXPECT_EQ(d.how, "incremental");
  EXPECT_EQ(glets_of(r.schedule().layout, 0), a_before);
  EXPECT_GE(r.schedule().layout.assigned_rps(1), 720 - 1e-6);
  EXPECT_EQ(f.check(r), std::vector<std::string>{});
  std::cout << d.how << " on " << d.gpus << " GPUs\n";

  // Period 4: everything falls by half: a full repartition on fewer GPUs, and the next period
  // starts from those.
  d = r.on_period({500, 300});
  EXPECT_TRUE(d.changed);
  EXPECT_EQ(d.need, RescheduleNeed::Full);
  EXPECT_EQ(d.how, "full repartition");
  EXPECT_LE(d.gpus, first_gpus);
  EXPECT_GE(r.schedule().layout.assigned_rps(0), 600 - 1e-6);
  EXPECT_EQ(f.check(r), std::vector<std::string>{});
  std::cout << d.how << " on " << d.gpus << " GPUs\n";

  // Period 5: far more than 4 GPUs carry: the previous schedule and targets stay.
  const auto kept = r.schedule().layout;
  d = r.on_period({20000, 300});
  EXPECT_FALSE(d.changed);
  EXPECT_NE(d.how.find("reverted"), std::string::npos) << d.how;
  EXPECT_EQ(r.schedule().layout, kept);
  EXPECT_DOUBLE_EQ(r.targets()[0], 600);
  EXPECT_THROW(r.on_period({1}), QueryError);
}
