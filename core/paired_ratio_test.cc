#include "core/paired_ratio.h"

#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace torchscan {
namespace {

// The interval, median and claim of `r`, to 1e-12 (ratios of decimals are not exact).
void ExpectInterval(const PairedRatioResult& r, double median, double low, double high, PairedClaim claim) {
  ASSERT_TRUE(r.median_ratio && r.ci_low && r.ci_high && r.resolvable_change) << r.note;
  EXPECT_NEAR(*r.median_ratio, median, 1e-12);
  EXPECT_NEAR(*r.ci_low, low, 1e-12);
  EXPECT_NEAR(*r.ci_high, high, 1e-12);
  EXPECT_NEAR(*r.resolvable_change, (high - low) / 2, 1e-12);
  EXPECT_EQ(r.claim, claim);
  EXPECT_EQ(r.note, "");
}

// No interval and no claim, for the reason `note`.
void ExpectNoInterval(const PairedRatioResult& r, const std::string& note) {
  EXPECT_FALSE(r.ci_low || r.ci_high || r.achieved_confidence || r.resolvable_change);
  EXPECT_EQ(r.claim, PairedClaim::kNoClaim);
  EXPECT_EQ(r.note, note);
}

TEST(SignIntervalCoverage, MatchesBinomialByHand) {
  EXPECT_DOUBLE_EQ(SignIntervalCoverage(4, 1), 1 - 2.0 / 16);          // 0.875
  EXPECT_DOUBLE_EQ(SignIntervalCoverage(5, 1), 1 - 2.0 / 32);          // 0.9375
  EXPECT_DOUBLE_EQ(SignIntervalCoverage(5, 2), 1 - 2.0 * 6 / 32);      // 0.625
  EXPECT_DOUBLE_EQ(SignIntervalCoverage(8, 2), 1 - 2.0 * 9 / 256);     // 0.9296875
  EXPECT_DOUBLE_EQ(SignIntervalCoverage(8, 3), 1 - 2.0 * 37 / 256);    // 0.7109375
  EXPECT_EQ(SignIntervalCoverage(5, 0), 0);
  EXPECT_EQ(SignIntervalCoverage(5, 4), 0);
}

TEST(MinRoundsForConfidence, FiveAtNinetySixAtNinetyFive) {
  EXPECT_EQ(MinRoundsForConfidence(0.90), 5);
  EXPECT_EQ(MinRoundsForConfidence(0.95), 6);
  EXPECT_EQ(MinRoundsForConfidence(1.0), 0);
  EXPECT_EQ(MinRoundsForConfidence(0.0), 0);
}

TEST(PairedRatios, FiveRoundsAllFasterClaimsFaster) {
  const PairedRatioResult r = PairedRatios({1, 1, 1, 1, 1}, {0.94, 0.90, 0.92, 0.93, 0.91});
  EXPECT_EQ(r.ratios, (std::vector<double>{0.94, 0.90, 0.92, 0.93, 0.91}));
  ExpectInterval(r, 0.92, 0.90, 0.94, PairedClaim::kFaster);
  EXPECT_DOUBLE_EQ(*r.achieved_confidence, 0.9375);
  EXPECT_NEAR(*r.resolvable_change, 0.02, 1e-12);
}

TEST(PairedRatios, IntervalAboveOneClaimsSlower) {
  // ratios 1.10, 1.05, 1.20, 1.02, 1.08: interval [1.02, 1.20]
  const PairedRatioResult r = PairedRatios({2, 2, 2, 2, 2}, {2.2, 2.1, 2.4, 2.04, 2.16});
  ExpectInterval(r, 1.08, 1.02, 1.2, PairedClaim::kSlower);
}

TEST(PairedRatios, EightRoundsUseSecondOrderStatistics) {
  // sorted ratios 0.8 .. 1.5 step 0.1; k = 2 (0.9297 >= 0.9, k = 3 gives 0.7109)
  const PairedRatioResult r = PairedRatios({1, 1, 1, 1, 1, 1, 1, 1}, {1.5, 0.8, 1.2, 0.9, 1.4, 1.0, 1.3, 1.1});
  ExpectInterval(r, 1.15, 0.9, 1.4, PairedClaim::kNoClaim);
  EXPECT_DOUBLE_EQ(*r.achieved_confidence, 0.9296875);
}

TEST(PairedRatios, IntervalCrossingOneMakesNoClaim) {
  const PairedRatioResult r = PairedRatios({1, 1, 1, 1, 1}, {0.90, 0.95, 0.97, 1.02, 0.93});
  ExpectInterval(r, 0.95, 0.90, 1.02, PairedClaim::kNoClaim);
}

TEST(PairedRatios, RatioExactlyOneAtTheBoundMakesNoClaim) {
  // The interval's upper end is exactly 1: not wholly below 1.
  const PairedRatioResult r = PairedRatios({2, 2, 2, 2, 2}, {1.8, 1.9, 2.0, 1.7, 1.6});
  ExpectInterval(r, 0.9, 0.8, 1.0, PairedClaim::kNoClaim);
}

TEST(PairedRatios, AnIntervalWithinTheSmallestClaimedChangeMakesNoClaim) {
  // ratios 1.005 .. 1.03: wholly above 1, but not above 1.01 (kPairedMinClaimedChange).
  const PairedRatioResult r = PairedRatios({1, 1, 1, 1, 1}, {1.005, 1.02, 1.03, 1.01, 1.015});
  ExpectInterval(r, 1.015, 1.005, 1.03, PairedClaim::kNoClaim);
  const PairedRatioResult faster = PairedRatios({1, 1, 1, 1, 1}, {0.995, 0.98, 0.97, 0.991, 0.985});
  ExpectInterval(faster, 0.985, 0.97, 0.995, PairedClaim::kNoClaim);
  // With no margin asked for, the same intervals claim.
  EXPECT_EQ(PairedRatios({1, 1, 1, 1, 1}, {1.005, 1.02, 1.03, 1.01, 1.015}, 0.9, 0).claim, PairedClaim::kSlower);
  EXPECT_EQ(PairedRatios({1, 1, 1, 1, 1}, {0.995, 0.98, 0.97, 0.991, 0.985}, 0.9, -1).claim, PairedClaim::kFaster);
}

TEST(PairedRatios, AllTiedAtOneGivesZeroWidthAndNoClaim) {
  const PairedRatioResult r = PairedRatios({3, 3, 3, 3, 3, 3}, {3, 3, 3, 3, 3, 3});
  ExpectInterval(r, 1.0, 1.0, 1.0, PairedClaim::kNoClaim);  // zero width
}

TEST(PairedRatios, TiesBelowOneStillClaimFaster) {
  const PairedRatioResult r = PairedRatios({1, 1, 1, 1, 1}, {0.9, 0.9, 0.9, 0.95, 0.9});
  ExpectInterval(r, 0.9, 0.9, 0.95, PairedClaim::kFaster);
}

TEST(PairedRatios, TooFewRoundsKeepsRatiosAndSaysHowManyAreNeeded) {
  const PairedRatioResult r = PairedRatios({1, 1, 1, 1}, {0.5, 0.5, 0.5, 0.5});
  EXPECT_EQ(r.ratios.size(), 4u);
  EXPECT_DOUBLE_EQ(*r.median_ratio, 0.5);
  ExpectNoInterval(r, "needs at least 5 rounds at 90% (has 4)");
}

TEST(PairedRatios, HigherConfidenceNeedsMoreRounds) {
  const PairedRatioResult r = PairedRatios({1, 1, 1, 1, 1}, {0.5, 0.5, 0.5, 0.5, 0.5}, 0.95);
  ExpectNoInterval(r, "needs at least 6 rounds at 95% (has 5)");
}

TEST(PairedRatios, NoRoundsOrUnpairableRoundsComputeNothing) {
  const PairedRatioResult none = PairedRatios({}, {});
  EXPECT_TRUE(none.ratios.empty());
  EXPECT_FALSE(none.median_ratio.has_value());
  ExpectNoInterval(none, "no timing rounds to pair: the runs were timed in a single pass");
  const PairedRatioResult uneven = PairedRatios({1, 1}, {1});
  EXPECT_FALSE(uneven.median_ratio.has_value());
  ExpectNoInterval(uneven, "the runs have different round counts (2 vs 1): rounds cannot be paired");
}

TEST(PairedRatios, NonPositiveOrNonFiniteMedianComputesNothing) {
  for (double bad : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    const PairedRatioResult r = PairedRatios({1, 1, bad, 1, 1}, {1, 1, 1, 1, 1});
    EXPECT_TRUE(r.ratios.empty());
    EXPECT_FALSE(r.median_ratio.has_value());
    ExpectNoInterval(r, "round 3 has a median that is not a positive number: no ratio is defined");
  }
}

TEST(PairedRatios, ConfidenceOutsideUnitIntervalIsRefused) {
  const PairedRatioResult r = PairedRatios({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, 1.0);
  EXPECT_TRUE(r.ratios.empty());
  EXPECT_EQ(r.note, "confidence 1 is outside (0, 1)");
}

TEST(PairedClaimName, NamesEachClaim) {
  EXPECT_STREQ(PairedClaimName(PairedClaim::kFaster), "faster");
  EXPECT_STREQ(PairedClaimName(PairedClaim::kSlower), "slower");
  EXPECT_STREQ(PairedClaimName(PairedClaim::kNoClaim), "no_claim");
}

}  // namespace
}  // namespace torchscan
