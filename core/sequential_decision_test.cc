// The confidence sequence's ranks against direct evaluation of its martingale, its error
// under repeated looks over synthetic A/A comparisons (10,000 per noise shape, a look after
// every round up to 100), and each outcome on synthetic rounds.
#include "core/sequential_decision.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace torchscan {
namespace {

double LogMartingale(int n, int k, double a) {
  const auto log_beta = [](double p, double q) { return std::lgamma(p) + std::lgamma(q) - std::lgamma(p + q); };
  return n * std::log(2.0) + log_beta(a + k, a + n - k) - log_beta(a, a);
}

TEST(SequenceRanks, AcceptExactlyTheCountsWhoseMartingaleStaysBelowOneOverAlpha) {
  for (int n : {1, 5, 8, 9, 20, 57, 100, 400}) {
    const SequenceRanks r = SequenceRanksAt(n);
    for (int k = 0; k <= n; ++k) {
      const bool accepted = LogMartingale(n, k, kSequentialMixtureA) < std::log(1 / kSequentialAlpha);
      EXPECT_EQ(accepted, k >= r.lower && k + 1 <= r.upper) << "n " << n << " k " << k;
    }
  }
}

TEST(SequenceRanks, NarrowInRankAsRoundsGrowAndBadSettingsGiveNoBound) {
  EXPECT_EQ(FirstBoundedRound(), 10);
  const SequenceRanks nine = SequenceRanksAt(9);
  EXPECT_TRUE(nine.lower == 0 || nine.upper == 10);
  const SequenceRanks hundred = SequenceRanksAt(100);
  EXPECT_GT(hundred.lower, 25);
  EXPECT_LT(hundred.upper, 76);
  EXPECT_EQ(hundred.lower + hundred.upper, 101) << "symmetric about the middle rank";
  for (const SequenceRanks r :
       {SequenceRanksAt(0), SequenceRanksAt(10, 0), SequenceRanksAt(10, 1), SequenceRanksAt(10, 0.1, 0)}) {
    EXPECT_EQ(r.lower, 0);
  }
}

TEST(LookAt, GivesTheOrderStatisticsAndEachOutcome) {
  // 10 rounds: ranks from SequenceRanksAt(10).
  const SequenceRanks r = SequenceRanksAt(10);
  ASSERT_GE(r.lower, 1);
  ASSERT_LE(r.upper, 10);
  std::vector<double> slower;
  for (int i = 0; i < 10; ++i) slower.push_back(1.05 + 0.001 * i);
  const SequentialLook s = LookAt(slower, 0.01);
  ASSERT_TRUE(s.low && s.high);
  EXPECT_NEAR(*s.low, 1.05 + 0.001 * (r.lower - 1), 1e-12);
  EXPECT_NEAR(*s.high, 1.05 + 0.001 * (r.upper - 1), 1e-12);
  EXPECT_NEAR(*s.resolvable_change, (*s.high - *s.low) / 2, 1e-15);
  EXPECT_EQ(s.outcome, SequentialOutcome::kSlower);

  std::vector<double> faster, same, unclear;
  for (double x : slower) {
    faster.push_back(1 / x);
    same.push_back(1 + (x - 1.05) - 0.004);  // 0.996 .. 1.005
    unclear.push_back(x - 0.045);            // 1.005 .. 1.014: straddles 1.01
  }
  EXPECT_EQ(LookAt(faster, 0.01).outcome, SequentialOutcome::kFaster);
  EXPECT_EQ(LookAt(same, 0.01).outcome, SequentialOutcome::kEquivalent);
  EXPECT_EQ(LookAt(unclear, 0.01).outcome, SequentialOutcome::kUndecided);
  EXPECT_EQ(LookAt(unclear, 0.0).outcome, SequentialOutcome::kSlower) << "delta 0: any change beyond the interval";
  EXPECT_EQ(LookAt(same, -1).outcome, SequentialOutcome::kUndecided) << "a negative delta is 0";
}

TEST(UnitRatios, TakeEachBuildPairsTrimmedMeanRatioInOrder) {
  const std::vector<double> r = UnitRatios({1, 1, 1, 2, 2, 0, 3}, {1.0, 1.2, 1.1, 0.9, 1.0, 1.05, 1.3});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_NEAR(r[0], std::sqrt(1.05 * 1.1), 1e-12) << "pair 1 (the 0 read as 1): 1.0 and 1.2 dropped";
  EXPECT_NEAR(r[1], std::sqrt(0.9 * 1.0), 1e-12) << "two rounds: their geometric mean";
  EXPECT_NEAR(r[2], 1.3, 1e-12);
  EXPECT_TRUE(std::isnan(UnitRatios({1, 2}, {1.0, -1.0})[1]));
  EXPECT_TRUE(UnitRatios({}, {}).empty());
}

TEST(UnitLogRatio, IsTheMeanWithoutBothExtremesFromThreeRounds) {
  std::vector<double> none;
  EXPECT_TRUE(std::isnan(UnitLogRatio(none)));
  std::vector<double> one = {0.3};
  EXPECT_DOUBLE_EQ(UnitLogRatio(one), 0.3);
  std::vector<double> two = {0.1, 0.4};
  EXPECT_DOUBLE_EQ(UnitLogRatio(two), 0.25) << "nothing dropped below 3 rounds";
  std::vector<double> eight = {0.02, -0.05, 0.9, 0.03, -0.04, 0.01, -0.6, 0.05};
  EXPECT_NEAR(UnitLogRatio(eight), (0.02 - 0.05 + 0.03 - 0.04 + 0.01 + 0.05) / 6, 1e-15)
      << "one preempted round each way moves nothing";
  std::vector<double> abba = {0.04, -0.04, 0.05, -0.03, 0.03, -0.05, 0.04, -0.04};  // two clusters
  EXPECT_NEAR(UnitLogRatio(abba), 0.0, 1e-15) << "the clusters' centre, where a median of 8 falls between them";
}

TEST(LookAt, TooFewOrBadRoundsGiveNoInterval) {
  const SequentialLook few = LookAt({1.1, 1.1, 1.1, 1.1, 1.1}, 0.01);
  EXPECT_FALSE(few.low && few.high);
  EXPECT_EQ(few.outcome, SequentialOutcome::kUndecided);
  EXPECT_FALSE(few.resolvable_change);
  std::vector<double> bad(20, 1.1);
  bad[3] = 0;
  EXPECT_FALSE(LookAt(bad, 0.01).low);
  bad[3] = std::nan("");
  EXPECT_FALSE(LookAt(bad, 0.01).high);
  EXPECT_EQ(LookAt(bad, 0.01).rounds, 20);
}

// Simulated comparisons: per-round log ratios `shift` + noise, looked at after every round
// from the first bounded one to `cap`, stopping at the first decision (as a compare does).
struct Tally {
  int runs = 0, missed = 0, slower = 0, faster = 0, equivalent = 0, undecided = 0;
};

Tally Simulate(int runs, int cap, double shift, double delta, const std::function<double(std::mt19937_64&)>& noise,
               uint64_t seed) {
  std::mt19937_64 random(seed);
  Tally t;
  t.runs = runs;
  const double truth = std::exp(shift);
  for (int run = 0; run < runs; ++run) {
    std::vector<double> ratios;
    bool missed = false;
    SequentialOutcome decided = SequentialOutcome::kUndecided;
    for (int n = 1; n <= cap; ++n) {
      ratios.push_back(std::exp(shift + noise(random)));
      const SequentialLook look = LookAt(ratios, delta);
      // Coverage is checked at every look, also after a decision would have stopped.
      if ((look.low && *look.low > truth) || (look.high && *look.high < truth)) missed = true;
      if (decided == SequentialOutcome::kUndecided) decided = look.outcome;
    }
    t.missed += missed;
    switch (decided) {
      case SequentialOutcome::kSlower: ++t.slower; break;
      case SequentialOutcome::kFaster: ++t.faster; break;
      case SequentialOutcome::kEquivalent: ++t.equivalent; break;
      case SequentialOutcome::kUndecided: ++t.undecided; break;
    }
  }
  return t;
}

// Noise shapes per round, in log ratio: normal, skewed (exponential, median 0), heavy-tailed
// (Student t, 3 degrees of freedom) and normal with 5 % outlier rounds ten times as wide.
double Normal(std::mt19937_64& r) { return std::normal_distribution<double>(0, 0.02)(r); }
double Skewed(std::mt19937_64& r) { return 0.02 * (std::exponential_distribution<double>(1)(r) - std::log(2.0)); }
double Heavy(std::mt19937_64& r) { return 0.02 / std::sqrt(3.0) * std::student_t_distribution<double>(3)(r); }
double Outliers(std::mt19937_64& r) {
  const double x = Normal(r);
  return std::uniform_real_distribution<double>(0, 1)(r) < 0.05 ? 10 * x : x;
}

TEST(SequentialDecision, AOverRepeatedLooksItsErrorStaysWithinAlpha) {
  // 10,000 A/A comparisons per shape, each looked at after every one of 100 rounds.
  for (const auto& [name, noise] : std::vector<std::pair<const char*, double (*)(std::mt19937_64&)>>{
           {"normal", Normal}, {"skewed", Skewed}, {"heavy", Heavy}, {"outliers", Outliers}}) {
    const Tally t = Simulate(10000, 100, 0, 0.01, noise, 42);
    std::printf("A/A %-8s: missed %d, slower %d, faster %d, equivalent %d, undecided %d of %d\n", name, t.missed,
                t.slower, t.faster, t.equivalent, t.undecided, t.runs);
    // The sequence's guarantee: it misses the true median at some look in at most alpha.
    EXPECT_LE(t.missed, kSequentialAlpha * t.runs) << name;
    // A false claim (faster or slower at no change) needs a miss beyond delta: far rarer.
    EXPECT_LE(t.slower + t.faster, 0.01 * t.runs) << name;
    EXPECT_GT(t.equivalent, 0.5 * t.runs) << name << ": no change is mostly shown as equivalent";
  }
}

TEST(SequentialDecision, DetectsARealChangeInTheRightDirection) {
  const Tally slower = Simulate(2000, 100, std::log(1.05), 0.01, Normal, 7);
  EXPECT_GE(slower.slower, 0.99 * slower.runs);
  EXPECT_EQ(slower.faster + slower.equivalent, 0);
  const Tally faster = Simulate(2000, 100, -std::log(1.03), 0.01, Skewed, 8);
  EXPECT_GE(faster.faster, 0.95 * faster.runs);
  EXPECT_EQ(faster.slower + faster.equivalent, 0);
}

TEST(SequentialDecision, AtTheCapAnUnclearChangeStaysUndecided) {
  // +1 % against delta 1 %: on the boundary; with 3 % noise and 20 rounds the evidence rarely
  // decides, and never claims the wrong direction.
  const Tally t = Simulate(
      2000, 20, std::log(1.01), 0.01, [](std::mt19937_64& r) { return 1.5 * Normal(r); }, 9);
  EXPECT_GT(t.undecided, 0.8 * t.runs);
  EXPECT_EQ(t.faster, 0);
}

}  // namespace
}  // namespace torchscan
