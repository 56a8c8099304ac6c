#include "report/round_plan_text.h"

#include <gtest/gtest.h>

namespace torchscan::report {
namespace {

v1::RoundPlan Plan(int rounds, const std::string& order, int64_t baseline_calls, int64_t candidate_calls) {
  v1::RoundPlan p;
  p.set_rounds(rounds);
  p.set_order(order);
  p.set_min_run_time_s(0.2);
  p.set_round_min_run_time_s(0.2 / rounds);
  p.set_baseline_calls_per_block(baseline_calls);
  p.set_candidate_calls_per_block(candidate_calls);
  return p;
}

TEST(DescribeRoundPlan, AlternatingRoundsShowTheFirstTwoRoundsAndEachRoundsShare) {
  EXPECT_EQ(DescribeRoundPlan(Plan(10, "baseline, candidate, candidate, baseline, baseline, candidate", 100, 7)),
            "10 alternating rounds (baseline, candidate, candidate, baseline, \u2026), each run timing 20.00 ms per "
            "round, 200.0 ms in all; warm-up and block size once per run (100 and 7 calls per block)");
  EXPECT_EQ(
      DescribeRoundPlan(Plan(2, "candidate, baseline, baseline, candidate", 3, 3)),
      "2 alternating rounds (candidate, baseline, baseline, candidate), each run timing 100.0 ms per round, 200.0 ms "
      "in all; warm-up and block size once per run (3 calls per block)");
}

TEST(DescribeRoundPlan, ASinglePassSaysSo) {
  EXPECT_EQ(DescribeRoundPlan(Plan(1, "candidate, baseline", 1, 1)),
            "one pass of each run (candidate, baseline), 200.0 ms each; warm-up once per run (1 call per block)");
}

TEST(DescribeRoundPlan, NoPlanRecordedGivesNothing) { EXPECT_EQ(DescribeRoundPlan(v1::RoundPlan()), ""); }

}  // namespace
}  // namespace torchscan::report

namespace torchscan::report {
namespace {

// A comparison planned as `plan` whose runs' blocks take `per_call_s` x `calls`, with
// `build_pairs` (the later ones of 4 rounds each) at ±1 %.
v1::Comparison Compared(const v1::RoundPlan& plan, double per_call_s, int64_t calls, int build_pairs) {
  v1::Comparison c;
  *c.mutable_round_plan() = plan;
  for (v1::BenchmarkReport* run : {c.mutable_before(), c.mutable_after()}) {
    run->mutable_timing()->mutable_summary()->set_median_s(per_call_s);
    run->mutable_timing()->set_calls_per_block(calls);
    run->mutable_settings()->mutable_timing()->set_build_pairs(build_pairs);
    run->mutable_settings()->mutable_timing()->set_smallest_change(0.01);
    for (int i = 0; i < plan.rounds() + 4 * (build_pairs - 1); ++i)
      run->mutable_timing()->add_rounds()->set_unit(i < plan.rounds() ? 1 : 2 + (i - plan.rounds()) / 4);
  }
  return c;
}

TEST(DescribeComparisonPlan, SaysHowBlocksMeetARoundsShareAndWhatBuildPairsFollowed) {
  const v1::RoundPlan plan = Plan(40, "baseline, candidate, candidate, baseline", 100, 100);  // 5 ms a round
  const std::string fast = DescribeComparisonPlan(Compared(plan, 12e-6, 100, 25));
  EXPECT_NE(
      fast.find("; the median timed block took 1.200 ms, about 4 to a round's share; then 24 more build pairs (both "
                "workloads built again, warmed up and timed for 4 alternating rounds each) until the paired "
                "evidence decided at \u00b11.0% or the time cap was reached"),
      std::string::npos)
      << fast;
  // A 45 ms model: one block of one call, longer than the share, in every round.
  const std::string slow = DescribeComparisonPlan(Compared(Plan(10, "baseline, candidate", 1, 1), 45e-3, 1, 1));
  EXPECT_NE(slow.find("; each round timed one block of 45.00 ms (the median timed block), longer than its share"),
            std::string::npos)
      << slow;
  EXPECT_EQ(slow.find("build pair"), std::string::npos) << slow;
  // A single pass, and no plan: as DescribeRoundPlan.
  EXPECT_EQ(DescribeComparisonPlan(Compared(Plan(1, "candidate, baseline", 1, 1), 1e-3, 1, 1)),
            DescribeRoundPlan(Plan(1, "candidate, baseline", 1, 1)));
  EXPECT_EQ(DescribeComparisonPlan(v1::Comparison()), "");
}

// Build pairs in a file whose runs recorded no rounds: no "0 alternating rounds".
TEST(DescribeComparisonPlan, BuildPairsWithoutRecordedRoundsSayNoCount) {
  v1::Comparison c = Compared(Plan(40, "baseline, candidate, candidate, baseline", 100, 100), 12e-6, 100, 25);
  for (v1::BenchmarkReport* r : {c.mutable_before(), c.mutable_after()}) r->mutable_timing()->clear_rounds();
  const std::string text = DescribeComparisonPlan(c);
  EXPECT_EQ(text.find("for 0 alternating rounds"), std::string::npos) << text;
  EXPECT_NE(text.find("24 more build pairs (both workloads built again and warmed up each time)"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace torchscan::report
