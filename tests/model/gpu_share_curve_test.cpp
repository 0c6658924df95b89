#include <gtest/gtest.h>

#include "model/profile/batch_curve.h"
#include "model/profile/gpu_share.h"

using namespace servescope;

TEST(GpuShare, EquivalentFormsCompareEqual) {
  EXPECT_EQ(GpuShare::mps(2), GpuShare::percent(50));
  EXPECT_EQ(GpuShare::mps(4), *GpuShare::parse("25%"));
  EXPECT_EQ(GpuShare::whole(), *GpuShare::parse("1"));
  EXPECT_EQ(GpuShare::mps(3), *GpuShare::parse("1/3"));
  EXPECT_LT(GpuShare::percent(20), GpuShare::percent(40));
  EXPECT_LT(GpuShare::mps(3), GpuShare::mps(2));
}

TEST(GpuShare, TextRoundTrip) {
  for (const char* text : {"1", "1/2", "1/3", "1/4", "40%", "60%", "80%"})
    EXPECT_EQ(GpuShare::parse(text)->to_string(), text) << text;
  EXPECT_EQ(GpuShare::percent(20).to_string(), "1/5");
  EXPECT_EQ(GpuShare::mps(3).mps_divisor(), 3);
  EXPECT_FALSE(GpuShare::percent(40).mps_divisor());
}

TEST(GpuShare, RejectsMalformed) {
  for (const char* text : {"", "0", "2", "0%", "101%", "1/0", "3/2", "x", "1/2/3", "-1/2", "50"})
    EXPECT_FALSE(GpuShare::parse(text)) << text;
}

TEST(BatchCurve, InterpolatesBetweenProfiledSizes) {
  const BatchCurve c({1, 2, 4, 8}, {Duration::microseconds(100), Duration::microseconds(150),
                                    Duration::microseconds(250), Duration::microseconds(450)});
  EXPECT_EQ(c.at(1), Duration::microseconds(100));
  EXPECT_EQ(c.at(3), Duration::microseconds(200));
  EXPECT_EQ(c.at(6), Duration::microseconds(350));
  EXPECT_EQ(c.at(8), Duration::microseconds(450));
  EXPECT_FALSE(c.at(0));
  EXPECT_FALSE(c.at(9));
}

TEST(BatchCurve, InterpolationIsMonotone) {
  const BatchCurve c({1, 7, 32}, {Duration::microseconds(10), Duration::microseconds(11), Duration::microseconds(500)});
  Duration prev;
  for (int b = 1; b <= 32; ++b) {
    ASSERT_TRUE(c.at(b));
    EXPECT_GE(*c.at(b), prev) << b;
    prev = *c.at(b);
  }
}

TEST(BatchCurve, RaisesDipsAndCountsThem) {
  int raised = 0;
  const BatchCurve c(
      {1, 2, 3, 4},
      {Duration::microseconds(10), Duration::microseconds(9), Duration::microseconds(12), Duration::microseconds(11)},
      &raised);
  EXPECT_EQ(raised, 2);
  EXPECT_EQ(c.at(2), Duration::microseconds(10));
  EXPECT_EQ(c.at(4), Duration::microseconds(12));
}

TEST(BatchCurve, RejectsBadShapes) {
  EXPECT_THROW(BatchCurve({1, 2}, {Duration::microseconds(1)}), std::invalid_argument);
  EXPECT_THROW(BatchCurve({2, 2}, {Duration::microseconds(1), Duration::microseconds(2)}), std::invalid_argument);
  EXPECT_THROW(BatchCurve({0}, {Duration::microseconds(1)}), std::invalid_argument);
  EXPECT_THROW(BatchCurve({1}, {Duration::microseconds(-1)}), std::invalid_argument);
}
