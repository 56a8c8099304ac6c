#include "report/time_axis.h"

#include <cmath>

#include "gtest/gtest.h"

namespace torchscan::report {
namespace {

TEST(TimeAxis, StartsAtZeroWhenTheDataSitNearIt) {
  const TimeAxis axis = MakeTimeAxis(4e-6, 10e-6);
  EXPECT_TRUE(axis.from_zero);
  EXPECT_DOUBLE_EQ(axis.lo, 0);
  EXPECT_DOUBLE_EQ(axis.hi, 10.5e-6);
}

TEST(TimeAxis, StartsBelowTheDataWhenTheyAreFarFromZero) {
  const TimeAxis axis = MakeTimeAxis(90e-6, 110e-6);
  EXPECT_FALSE(axis.from_zero);
  EXPECT_DOUBLE_EQ(axis.lo, 89e-6);
  EXPECT_DOUBLE_EQ(axis.hi, 111e-6);
}

TEST(TimeAxis, PadsEqualEndsAndFallsBackWithoutData) {
  const TimeAxis one = MakeTimeAxis(2e-3, 2e-3);
  EXPECT_LT(one.lo, 2e-3);
  EXPECT_GT(one.hi, 2e-3);
  const TimeAxis none = MakeTimeAxis(INFINITY, -INFINITY);
  EXPECT_EQ(none.lo, 0);
  EXPECT_EQ(none.hi, 1);
  EXPECT_EQ(MakeTimeAxis(NAN, 1).hi, 1);
}

TEST(TimeAxis, TicksAreRoundAndLabelsLoseTrailingZeros) {
  const std::vector<double> ticks = AxisTicks(TimeAxis{0, 10, true});
  EXPECT_EQ(ticks, (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(TickLabel(50e-6), "50 µs");
  EXPECT_EQ(TickLabel(1.5e-3), "1.5 ms");
  EXPECT_TRUE(AxisTicks(TimeAxis{0, NAN, true}).empty());
}

}  // namespace
}  // namespace torchscan::report
