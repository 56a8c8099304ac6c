#include "core/paired_ratio.h"

#include <cmath>
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

// P(T <= t) by enumerating all 2^n sign patterns of the ranks 1..n.
std::vector<double> EnumeratedSignedRankCdf(int n) {
  const int total = n * (n + 1) / 2;
  std::vector<double> counts(total + 1, 0.0);
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    int sum = 0;
    for (int rank = 1; rank <= n; ++rank)
      if (mask & (1u << (rank - 1))) sum += rank;
    counts[sum] += 1;
  }
  std::vector<double> cdf(total + 1);
  double acc = 0;
  for (int t = 0; t <= total; ++t) cdf[t] = (acc += counts[t]) / (1u << n);
  return cdf;
}

TEST(SignedRankCdf, MatchesEnumerationOfEverySignPattern) {
  for (int n = 1; n <= 14; ++n) {
    const std::vector<double> expected = EnumeratedSignedRankCdf(n), got = SignedRankCdf(n);
    ASSERT_EQ(got.size(), expected.size()) << n;
    for (size_t t = 0; t < got.size(); ++t) EXPECT_NEAR(got[t], expected[t], 1e-15) << "n " << n << " t " << t;
  }
  EXPECT_TRUE(SignedRankCdf(0).empty());
}

TEST(SignedRankCdf, BeyondTheExactRangeIsTheNormalApproximationWhichTracksTheExactLaw) {
  auto normal = [](int n, int t) {
    const double mean = n * (n + 1) / 4.0, sd = std::sqrt(n * (n + 1.0) * (2 * n + 1.0) / 24);
    return 0.5 * std::erfc(-((t + 0.5 - mean) / sd) / std::sqrt(2.0));
  };
  const int exact_n = kExactSignedRankRounds;
  const std::vector<double> exact = SignedRankCdf(exact_n);
  for (int t = 0; t < static_cast<int>(exact.size()); t += 97) EXPECT_NEAR(exact[t], normal(exact_n, t), 1e-3) << t;
  const std::vector<double> approx = SignedRankCdf(exact_n + 1);
  ASSERT_EQ(approx.size(), static_cast<size_t>((exact_n + 1) * (exact_n + 2) / 2 + 1));
  for (int t = 0; t < static_cast<int>(approx.size()); t += 97) EXPECT_DOUBLE_EQ(approx[t], normal(exact_n + 1, t));
}

TEST(SignedRankIntervalCoverage, MatchesTheTablesByHand) {
  EXPECT_DOUBLE_EQ(SignedRankIntervalCoverage(4, 1), 1 - 2.0 / 16);      // 0.875
  EXPECT_DOUBLE_EQ(SignedRankIntervalCoverage(5, 1), 1 - 2.0 / 32);      // 0.9375
  EXPECT_DOUBLE_EQ(SignedRankIntervalCoverage(5, 2), 1 - 2.0 * 2 / 32);  // 0.875
  // n = 8: P(T <= 5) = 10/256, P(T <= 6) = 14/256 (the two-sided 10 % critical value is 5).
  EXPECT_DOUBLE_EQ(SignedRankIntervalCoverage(8, 6), 1 - 2.0 * 10 / 256);  // 0.921875
  EXPECT_DOUBLE_EQ(SignedRankIntervalCoverage(8, 7), 1 - 2.0 * 14 / 256);  // 0.890625
  EXPECT_EQ(SignedRankIntervalCoverage(5, 0), 0);
  EXPECT_EQ(SignedRankIntervalCoverage(5, 9), 0);  // 2k > M + 1 = 16
  EXPECT_EQ(SignedRankIntervalCoverage(0, 1), 0);
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

TEST(PairedRatios, EightRoundsTakeTheSixthWalshAverageFromEachEnd) {
  // log ratios 0.01 .. 0.08 (shuffled): the 36 Walsh averages (x_i + x_j) / 2, in hundredths,
  // run 1, 1.5, 2, 2, 2.5, 2.5, ... so the 6th from the bottom is 2.5 and from the top 6.5;
  // k = 6 (coverage 0.921875; k = 7 gives 0.890625).
  std::vector<double> candidate;
  for (int i : {5, 1, 8, 3, 6, 2, 7, 4}) candidate.push_back(std::exp(0.01 * i));
  const PairedRatioResult r = PairedRatios(std::vector<double>(8, 1.0), candidate);
  ExpectInterval(r, (std::exp(0.04) + std::exp(0.05)) / 2, std::exp(0.025), std::exp(0.065), PairedClaim::kSlower);
  EXPECT_DOUBLE_EQ(*r.achieved_confidence, 0.921875);
}

TEST(PairedRatios, OneWildRoundMovesTheIntervalLittle) {
  // Forty rounds near +5 %, one of them 1.6 (a round disturbed by other work): still slower.
  std::vector<double> candidate;
  for (int i = 0; i < 40; ++i) candidate.push_back(1.05 + 0.002 * ((i * 7) % 11 - 5));
  candidate[17] = 1.6;
  const PairedRatioResult r = PairedRatios(std::vector<double>(40, 1.0), candidate);
  ASSERT_TRUE(r.ci_low && r.ci_high) << r.note;
  EXPECT_GT(*r.ci_low, 1.04);
  EXPECT_LT(*r.ci_high, 1.06);
  EXPECT_EQ(r.claim, PairedClaim::kSlower);
  EXPECT_GE(*r.achieved_confidence, 0.90);
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
