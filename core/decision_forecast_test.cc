#include "core/decision_forecast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace torchscan {
namespace {

// `pairs` A/A pairs of `rounds` round ratios each: lognormal noise of `sd`, and each pair's
// own offset (a build pair's layout) drawn with sd `offset_sd`.
std::vector<std::vector<double>> Pairs(int pairs, int rounds, double sd, double offset_sd, uint64_t seed = 1) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> noise(0, sd), offset(0, offset_sd);
  std::vector<std::vector<double>> out(pairs);
  for (std::vector<double>& pair : out) {
    const double o = offset(random);
    for (int i = 0; i < rounds; ++i) pair.push_back(std::exp(o + noise(random)));
  }
  return out;
}

ForecastInput Input(std::vector<std::vector<double>> pairs, double planned_s, double build_pair_s) {
  ForecastInput in;
  in.pair_round_ratios = std::move(pairs);
  in.planned_s = planned_s;
  in.build_pair_s = build_pair_s;
  return in;
}

TEST(ForecastDecision, QuietMachineDecidesEquivalentQuicklyAndResolvesSmallChanges) {
  const auto f = ForecastDecision(Input(Pairs(20, 40, 0.002, 0.0), 0.4, 0.05));
  ASSERT_TRUE(f.has_value());
  EXPECT_GE(f->equivalent_share(), 0.95);
  EXPECT_LE(f->false_claim_share(), 0.05);
  EXPECT_LT(f->median_stop_s(), 2.0);  // ten units or a few more: 0.4 + 9 x 0.05 s
  ASSERT_TRUE(f->has_resolvable_change());
  EXPECT_GT(f->resolvable_change(), 0.01);  // a claim needs the interval beyond ±1 %
  EXPECT_LT(f->resolvable_change(), 0.02);
  EXPECT_EQ(f->simulations(), 400);
  EXPECT_DOUBLE_EQ(f->smallest_change(), 0.01);
}

TEST(ForecastDecision, BuildOffsetsBetweenPairsCostResolution) {
  const auto steady = ForecastDecision(Input(Pairs(20, 40, 0.01, 0.0), 0.4, 0.2));
  const auto offsets = ForecastDecision(Input(Pairs(20, 40, 0.01, 0.02), 0.4, 0.2));
  ASSERT_TRUE(steady && offsets && steady->has_resolvable_change() && offsets->has_resolvable_change());
  EXPECT_GT(offsets->resolvable_change(), steady->resolvable_change() + 0.003)
      << steady->resolvable_change() << " vs " << offsets->resolvable_change();
  EXPECT_LT(offsets->equivalent_share(), steady->equivalent_share());
}

TEST(ForecastDecision, ATightCapStopsUndecidedAtTheCap) {
  // 5 % noise and room for 13 units (the planned rounds, then 12 build pairs that end by
  // 19.6 s): rarely decided, stopped at the cap.
  const auto f = ForecastDecision(Input(Pairs(20, 40, 0.05, 0.0), 0.4, 1.6));
  ASSERT_TRUE(f.has_value());
  EXPECT_LT(f->equivalent_share(), 0.5);
  EXPECT_NEAR(f->median_stop_s(), 0.4 + 12 * 1.6, 1e-9);
  EXPECT_TRUE(!f->has_resolvable_change() || f->resolvable_change() > 0.03);
}

TEST(ForecastDecision, TheJobsTimeOutsideTimingLeavesFewerBuildPairsUnderTheCap) {
  // As above, with 3.2 s of builds and work after timing: two build pairs fewer fit.
  ForecastInput in = Input(Pairs(20, 40, 0.05, 0.0), 0.4, 1.6);
  in.outside_timing_s = 3.2;
  const auto f = ForecastDecision(in);
  ASSERT_TRUE(f.has_value());
  EXPECT_NEAR(f->median_stop_s(), 3.2 + 0.4 + 10 * 1.6, 1e-9);
  EXPECT_DOUBLE_EQ(f->outside_timing_s(), 3.2);
}

TEST(ForecastDecision, NothingUsableIsNoForecast) {
  EXPECT_FALSE(ForecastDecision(Input({}, 0.4, 0.05)).has_value());
  EXPECT_FALSE(ForecastDecision(Input({{std::nan(""), -1.0}}, 0.4, 0.05)).has_value());
  EXPECT_FALSE(ForecastDecision(Input(Pairs(2, 10, 0.01, 0), 0.4, 0)).has_value());
}

TEST(ForecastDecision, SeededAndRepeatable) {
  const ForecastInput in = Input(Pairs(20, 40, 0.01, 0.005), 0.4, 0.2);
  EXPECT_EQ(ForecastDecision(in)->SerializeAsString(), ForecastDecision(in)->SerializeAsString());
}

// A calibration pair: `rounds` round ratios, and a timeline of a build and warm-up of each run
// (0.1 s each) and `rounds` timing phases of 0.01 s per run.
v1::Comparison CalibrationPair(const std::vector<double>& ratios) {
  v1::Comparison c;
  c.mutable_round_plan()->set_rounds(static_cast<int>(ratios.size()));
  for (double r : ratios) c.mutable_evidence()->mutable_paired()->add_round_ratios(r);
  double t = 0;
  const auto span = [&](const std::string& phase, double seconds) {
    v1::PhaseSpan* s = c.mutable_timeline()->add_spans();
    s->set_phase(phase);
    s->set_start_s(t);
    s->set_end_s(t += seconds);
  };
  for (const char* run : {"baseline", "candidate"}) span(std::string("build ") + run, 0.1);
  for (const char* run : {"baseline", "candidate"}) span(std::string("warm-up ") + run, 0.1);
  c.mutable_before()->mutable_timing()->mutable_summary()->set_median_s(0.001);
  c.mutable_after()->mutable_timing()->mutable_summary()->set_median_s(0.001);
  for (size_t i = 0; i < ratios.size(); ++i)
    for (const char* run : {"baseline", "candidate"}) span(std::string("timing ") + run, 0.01);
  return c;
}

TEST(ForecastFromPairs, ReadsTheTimesFromEachPairsTimeline) {
  std::vector<v1::Comparison> pairs;
  for (const std::vector<double>& ratios : Pairs(10, 40, 0.005, 0.0)) pairs.push_back(CalibrationPair(ratios));
  const auto f = ForecastFromPairs(pairs);
  ASSERT_TRUE(f.has_value());
  EXPECT_NEAR(f->planned_s(), 0.8, 1e-9);  // 40 rounds x 2 runs x 10 ms
  // The builds, then 20 rounds (twice the builds' 0.2 s, at 20 ms a round) and a warm-up of each.
  EXPECT_NEAR(f->build_pair_s(), 0.2 + 0.8 * 21 / 40, 1e-9);
  EXPECT_NE(f->method().find("the trimmed mean of 20 rounds"), std::string::npos) << f->method();
  // The first builds, then 14.5 calls of each run after timing (1 ms each) and 0.5 s.
  EXPECT_NEAR(f->outside_timing_s(), 0.2 + 14.5 * 0.002 + 0.5, 1e-9);
  EXPECT_GT(f->median_stop_s(), f->outside_timing_s() + f->planned_s() - 1e-9) << "the job's seconds, not timing's";
  EXPECT_DOUBLE_EQ(f->max_time_s(), 20);
  EXPECT_FALSE(ForecastFromPairs({v1::Comparison()}).has_value());  // no timeline: no times
}

}  // namespace
}  // namespace torchscan
