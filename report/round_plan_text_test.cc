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
