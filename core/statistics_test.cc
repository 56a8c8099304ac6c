#include "core/statistics.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace torchscan {
namespace {

TEST(Quantile, EmptyOrOutOfRangeIsAbsent) {
  EXPECT_FALSE(Quantile({}, 0.5).has_value());
  EXPECT_FALSE(Quantile({1.0}, -0.1).has_value());
  EXPECT_FALSE(Quantile({1.0}, 1.5).has_value());
  EXPECT_FALSE(Quantile({1.0}, std::nan("")).has_value());
}

TEST(Quantile, SingleValueIsEveryQuantile) {
  EXPECT_EQ(*Quantile({7.0}, 0.0), 7.0);
  EXPECT_EQ(*Quantile({7.0}, 0.25), 7.0);
  EXPECT_EQ(*Quantile({7.0}, 1.0), 7.0);
}

TEST(Quantile, LinearInterpolationMatchesNumpyType7) {
  // numpy.quantile([4, 1, 3, 2], [0.25, 0.5, 0.75]) == [1.75, 2.5, 3.25]
  EXPECT_DOUBLE_EQ(*Quantile({4, 1, 3, 2}, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(*Quantile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(*Quantile({4, 1, 3, 2}, 0.75), 3.25);
  EXPECT_DOUBLE_EQ(*Quantile({10, 20, 30, 40, 50}, 0.1), 14.0);
}

TEST(Summarize, EmptyIsAbsent) { EXPECT_FALSE(Summarize({}).has_value()); }

TEST(Summarize, ExactValues) {
  const Summary s = *Summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(s.count, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_DOUBLE_EQ(s.iqr, 2);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
}

TEST(Summarize, OneValueHasZeroIqr) {
  const Summary s = *Summarize({0.25});
  EXPECT_DOUBLE_EQ(s.median, 0.25);
  EXPECT_DOUBLE_EQ(s.iqr, 0.0);
  EXPECT_EQ(s.count, 1);
}

TEST(MannWhitneyU, SeparatedSamplesMatchScipy) {
  // scipy.stats.mannwhitneyu([1..5], [6..10], method="asymptotic") -> U=0, p=0.012185
  const MannWhitneyResult r = MannWhitneyU({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  ASSERT_TRUE(r.p_value.has_value()) << r.note;
  EXPECT_DOUBLE_EQ(r.u, 0);
  EXPECT_NEAR(*r.p_value, 0.012185, 1e-5);
}

TEST(MannWhitneyU, TiesUseAverageRanksAndCorrection) {
  // scipy.stats.mannwhitneyu([1,2,2,3,4,5], [2,3,3,4,6,7], method="asymptotic")
  // -> U=10.5, p=0.254719
  const MannWhitneyResult r = MannWhitneyU({1, 2, 2, 3, 4, 5}, {2, 3, 3, 4, 6, 7});
  ASSERT_TRUE(r.p_value.has_value()) << r.note;
  EXPECT_DOUBLE_EQ(r.u, 10.5);
  EXPECT_NEAR(*r.p_value, 0.254719, 1e-5);
}

TEST(MannWhitneyU, IdenticalSamplesGiveOne) {
  const MannWhitneyResult r = MannWhitneyU({1, 2, 3, 4}, {1, 2, 3, 4});
  ASSERT_TRUE(r.p_value.has_value()) << r.note;
  EXPECT_DOUBLE_EQ(*r.p_value, 1.0);
}

TEST(MannWhitneyU, TooFewBlocksCannotReachSignificance) {
  // 3 + 3 blocks: the smallest exact two-sided p is 2 / C(6, 3) = 0.1 > 0.05.
  const MannWhitneyResult r = MannWhitneyU({1, 2, 3}, {4, 5, 6});
  EXPECT_FALSE(r.p_value.has_value());
  EXPECT_EQ(r.note,
            "not computed: 3 and 3 blocks cannot reach two-sided significance at 0.05 (smallest possible p = 0.1)");
}

TEST(MannWhitneyU, EmptyOrAllTiedIsAbsent) {
  EXPECT_FALSE(MannWhitneyU({}, {1, 2}).p_value.has_value());
  EXPECT_FALSE(MannWhitneyU({2, 2, 2, 2}, {2, 2, 2, 2}).p_value.has_value());
}

}  // namespace
}  // namespace torchscan
