// The reservation plane's learned pace (engine/ppipe/slot_pace.h).
#include "engine/ppipe/slot_pace.h"

#include <gtest/gtest.h>

namespace servescope::engine {
namespace {

Duration us(std::int64_t n) {
  return Duration::microseconds(n);
}

TEST(SlotPace, ExactRuntimesLeaveTheProfileAlone) {
  SlotPace pace(2);
  for (int i = 0; i < 40; ++i)
    pace.observe(0, 4, us(100), us(100));
  EXPECT_EQ(pace.factor(0, 4), 1.0);
  EXPECT_EQ(pace.paced(0, 4, us(100)), us(100));
  // Faster than profiled never shortens a reservation: the profile is the floor.
  for (int i = 0; i < 40; ++i)
    pace.observe(1, 4, us(100), us(60));
  EXPECT_EQ(pace.factor(1, 4), 1.0);
}

TEST(SlotPace, LearnsTheUpperQuartileOfEachBatchSizeOnItsOwn) {
  SlotPace pace(1);
  // Batch 8 runs alone at 1.2× its profile 6 times in 10 and beside a busy sibling at 1.5× 4
  // times; batch 1 at 3×: each keeps its own pace, the upper quartile (the contended one).
  for (int i = 0; i < SlotPace::kSettle - 1; ++i)
    pace.observe(0, 8, us(1000), us(i < 6 ? 1200 : 1500));
  EXPECT_EQ(pace.factor(0, 8), 1.0) << "nothing learned before kSettle batches";
  pace.observe(0, 8, us(1000), us(1500));
  EXPECT_NEAR(pace.factor(0, 8), 1.5, 1e-6);
  for (int i = 0; i < SlotPace::kSettle; ++i)
    pace.observe(0, 1, us(100), us(300));
  EXPECT_NEAR(pace.factor(0, 1), 3.0, 1e-6);
  EXPECT_NEAR(pace.factor(0, 8), 1.5, 1e-6);
  EXPECT_EQ(pace.factor(0, 4), 1.0);
  EXPECT_EQ(pace.paced(0, 8, us(1000)), us(1500));
  // One outlier in ten is above the upper quartile; the window forgets old batches.
  SlotPace spiky(1);
  for (int i = 0; i < 9; ++i)
    spiky.observe(0, 2, us(100), us(110));
  spiky.observe(0, 2, us(100), us(900));
  EXPECT_NEAR(spiky.factor(0, 2), 1.1, 1e-6);
  for (int i = 0; i < SlotPace::kWindow; ++i)
    spiky.observe(0, 2, us(100), us(100));
  EXPECT_EQ(spiky.factor(0, 2), 1.0);
  // A batch that ran no time (its requests had all ended) and unknown slots are ignored.
  spiky.observe(0, 2, us(100), Duration());
  spiky.observe(7, 2, us(100), us(500));
  EXPECT_EQ(spiky.factor(7, 2), 1.0);
}

}  // namespace
}  // namespace servescope::engine
