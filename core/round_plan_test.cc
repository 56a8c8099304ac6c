#include "core/round_plan.h"

#include <cmath>

#include <gtest/gtest.h>

#include "core/fake_clock.h"
#include "core/latency_runner.h"

namespace torchscan {
namespace {

LatencyOptions Timing(double min_run_time_s, int min_blocks, double max_run_time_s = 0) {
  LatencyOptions o;
  o.min_run_time_s = min_run_time_s;
  o.min_blocks = min_blocks;
  o.max_run_time_s = max_run_time_s;
  return o;
}

TEST(PlanRounds, AlternatesWhoLeadsInAbbaOrder) {
  const RoundPlan plan = PlanRounds(3, false, Timing(0.3, 10));
  EXPECT_EQ(RoundOrder(plan), "baseline, candidate, candidate, baseline, baseline, candidate");
  ASSERT_EQ(plan.steps.size(), 6u);
  EXPECT_EQ(plan.steps[2].round, 2);
  EXPECT_TRUE(plan.steps[2].candidate);
  EXPECT_TRUE(plan.steps[2].leads);
  EXPECT_FALSE(plan.steps[3].leads);
  EXPECT_EQ(RoundOrder(PlanRounds(2, true, Timing(0.2, 10))), "candidate, baseline, baseline, candidate");
  EXPECT_EQ(RoundOrder(PlanRounds(1, false, Timing(0.2, 10))), "baseline, candidate");
  EXPECT_EQ(RoundOrder(PlanRounds(1, true, Timing(0.2, 10))), "candidate, baseline");
}

TEST(ExtendRounds, GoesOnWithTheSameAlternationAndShare) {
  LatencyOptions timing;
  timing.min_run_time_s = 0.2;
  RoundPlan plan = PlanRounds(2, false, timing);
  ExtendRounds(2, false, &plan);
  EXPECT_EQ(plan.rounds, 4);
  EXPECT_EQ(RoundOrder(plan), RoundOrder(PlanRounds(4, false, timing)));
  EXPECT_DOUBLE_EQ(plan.round_min_run_time_s, 0.1) << "the planned share, kept";
  ASSERT_EQ(plan.steps.size(), 8u);
  EXPECT_EQ(plan.steps[6].round, 4);
  RoundPlan reversed = PlanRounds(3, true, timing);
  ExtendRounds(1, false, &reversed);
  EXPECT_EQ(RoundOrder(reversed), RoundOrder(PlanRounds(4, true, timing)));
}

TEST(ExtendRounds, TheCallerChoosesWhoLeadsTheFirstNewRound) {
  LatencyOptions timing;
  timing.min_run_time_s = 0.2;
  RoundPlan plan = PlanRounds(4, false, timing);  // round 5 would be the baseline's by parity
  ExtendRounds(4, true, &plan);
  ASSERT_EQ(plan.steps.size(), 16u);
  const std::vector<bool> candidate_leads = {plan.steps[8].candidate, plan.steps[10].candidate,
                                             plan.steps[12].candidate, plan.steps[14].candidate};
  EXPECT_EQ(candidate_leads, (std::vector<bool>{true, false, true, false})) << "ABBA from the chosen leader";
  for (size_t i = 8; i < plan.steps.size(); i += 2) {
    EXPECT_TRUE(plan.steps[i].leads);
    EXPECT_NE(plan.steps[i].candidate, plan.steps[i + 1].candidate) << "both runs in every round";
    EXPECT_EQ(plan.steps[i].round, 5 + static_cast<int>(i - 8) / 2);
  }
}

TEST(RoundsPerBuildPair, TimesTwiceTheRebuildsInEvenRoundsWithinTheBounds) {
  EXPECT_EQ(RoundsPerBuildPair(0.21, 0.0114), kMaxRoundsPerBuildPair) << "the 50-layer chain files: 38, capped";
  EXPECT_EQ(RoundsPerBuildPair(0.1, 0.02), 10) << "0.2 s of rounds for 0.1 s of rebuilds";
  EXPECT_EQ(RoundsPerBuildPair(0.1, 0.021), 10) << "9.5 rounds: rounded up to 10";
  EXPECT_EQ(RoundsPerBuildPair(0.1, 0.0224), 10) << "8.9 rounds: 9, then even";
  EXPECT_EQ(RoundsPerBuildPair(0.002, 0.01), kMinRoundsPerBuildPair) << "a small model rebuilds in ms";
  EXPECT_EQ(RoundsPerBuildPair(5, 0.001), kMaxRoundsPerBuildPair);
  EXPECT_EQ(RoundsPerBuildPair(0, 0.01), kMinRoundsPerBuildPair);
  EXPECT_EQ(RoundsPerBuildPair(0.1, 0), kMinRoundsPerBuildPair);
  EXPECT_EQ(RoundsPerBuildPair(0.1, std::nan("")), kMinRoundsPerBuildPair);
}

TEST(BuildPairEstimateS, IsTheBuildsThenItsRoundsAndAWarmUpOfThePlannedTiming) {
  EXPECT_DOUBLE_EQ(BuildPairEstimateS(0.01, 0.8, 40, 4), 0.01 + 0.8 * 5 / 40) << "4 rounds and a warm-up";
  EXPECT_DOUBLE_EQ(BuildPairEstimateS(0.1, 0.8, 40, RoundsPerBuildPair(0.1, 0.8 / 40)), 0.1 + 0.8 * 11 / 40)
      << "10 rounds (0.2 s of 0.02 s rounds)";
  EXPECT_DOUBLE_EQ(BuildPairEstimateS(0.2, 0.8, 4, 4), 1.0) << "never more than the planned timing";
}

TEST(AfterTimingReserveS, CountsTheProfiledCallsMemoryAndCheckPerRunAndTheWorkersOwnTime) {
  // 10 profiled calls at 1.25 x, memory and check: 14.5 calls of each run, then 0.5 s.
  EXPECT_DOUBLE_EQ(AfterTimingReserveS(0.06, 0.04, 10), 14.5 * 0.1 + 0.5);
  EXPECT_DOUBLE_EQ(AfterTimingReserveS(0.06, 0.04, 0), 2 * 0.1 + 0.5)
      << "diagnostics off: the check and a call to spare";
  EXPECT_DOUBLE_EQ(AfterTimingReserveS(-1, 0, -3), 0.5) << "no figure: the fixed part";
}

TEST(PlanRounds, EachRunLeadsInHalfTheRoundsOfAnEvenPlan) {
  const RoundPlan plan = PlanRounds(10, false, Timing(0.2, 10));
  int baseline_leads = 0;
  for (const RoundStep& step : plan.steps) baseline_leads += step.leads && !step.candidate;
  EXPECT_EQ(baseline_leads, 5);
}

TEST(PlanRounds, DividesTheTimedWorkAcrossRoundsInsteadOfMultiplyingIt) {
  const RoundPlan plan = PlanRounds(10, false, Timing(0.2, 10, 3));
  EXPECT_DOUBLE_EQ(plan.round_min_run_time_s, 0.02);
  EXPECT_EQ(plan.round_min_blocks, 1);
  EXPECT_DOUBLE_EQ(plan.round_max_run_time_s, 0.3);
  EXPECT_DOUBLE_EQ(plan.round_min_run_time_s * plan.rounds, 0.2) << "the rounds together time one pass's work";
  const RoundPlan four = PlanRounds(4, false, Timing(1, 10));
  EXPECT_EQ(four.round_min_blocks, 3) << "ceil(10 / 4): the rounds together reach min_blocks";
  EXPECT_DOUBLE_EQ(four.round_max_run_time_s, 0) << "no limit stays no limit";
  const RoundPlan single = PlanRounds(1, false, Timing(0.2, 10));
  EXPECT_DOUBLE_EQ(single.round_min_run_time_s, 0.2);
  EXPECT_EQ(single.round_min_blocks, 10);
}

TEST(PlanRounds, LongBlocksGetFewerRoundsButNeverFewerThanMinBlocks) {
  // 0.2 s at 40 rounds is 5 ms a round; a 16 ms block allows 12 rounds of the same work.
  const RoundPlan plan = PlanRounds(40, false, Timing(0.2, 10), 0.016);
  EXPECT_EQ(plan.requested_rounds, 40);
  EXPECT_EQ(plan.rounds, 12);
  EXPECT_EQ(plan.steps.size(), 24u);
  EXPECT_DOUBLE_EQ(plan.round_min_run_time_s, 0.2 / 12);
  EXPECT_EQ(
      plan.note,
      "40 rounds asked, 12 planned: a block of the slower run took 16 ms when its blocks were sized, so more rounds "
      "would time more than "
      "min_run_time_s 0.2 s (a larger min_run_time_s allows more rounds)");
  // A 100 ms block: a single pass would time min_blocks (10) blocks anyway, so 10 rounds cost nothing more.
  EXPECT_EQ(PlanRounds(40, false, Timing(0.2, 10), 0.1).rounds, 10);
  // Short blocks, an unknown block (0) or a single pass: as asked, no note.
  for (const RoundPlan& p : {PlanRounds(40, false, Timing(0.2, 10), 0.001), PlanRounds(40, false, Timing(0.2, 10)),
                             PlanRounds(1, false, Timing(0.2, 10), 0.1)}) {
    EXPECT_EQ(p.rounds, p.requested_rounds);
    EXPECT_EQ(p.note, "");
  }
}

TEST(EqualCalls, BothRunsTimeTheLargerSizedCount) {
  EXPECT_EQ(EqualCalls(29, 1), 29);
  EXPECT_EQ(EqualCalls(1, 10), 10);
  EXPECT_EQ(EqualCalls(100, 100), 100);
  EXPECT_EQ(EqualCalls(0, 0), 1);  // never fewer than one
}

TEST(RoundTarget, ARoundThatRanPastItsShareShortensTheNext) {
  const RoundPlan plan = PlanRounds(4, false, Timing(0.4, 4));  // 0.1 s a round
  EXPECT_DOUBLE_EQ(RoundTarget(plan, 1, 0), 0.1);
  EXPECT_NEAR(RoundTarget(plan, 2, 0.13), 0.07, 1e-12) << "round 1 ran 30 ms over";
  EXPECT_DOUBLE_EQ(RoundTarget(plan, 3, 0.35), 0) << "already past: the round's minimum blocks only";
}

TEST(RoundPlanRecord, RecordsThePlanAndTheBlockSizesChosenOnce) {
  const v1::RoundPlan r = RoundPlanRecord(PlanRounds(2, false, Timing(0.4, 10)), Timing(0.4, 10), 100, 7);
  EXPECT_EQ(r.rounds(), 2);
  EXPECT_EQ(r.order(), "baseline, candidate, candidate, baseline");
  EXPECT_DOUBLE_EQ(r.min_run_time_s(), 0.4);
  EXPECT_DOUBLE_EQ(r.round_min_run_time_s(), 0.2);
  EXPECT_EQ(r.round_min_blocks(), 5);
  EXPECT_EQ(r.baseline_calls_per_block(), 100);
  EXPECT_EQ(r.candidate_calls_per_block(), 7);
  EXPECT_NE(r.warm_up().find("once per run"), std::string::npos);
  EXPECT_EQ(r.requested_rounds(), 2);
  EXPECT_EQ(r.note(), "");
}

// The runner under a plan, on a fake clock where each call takes 1 ms: warm-up and block
// sizing happen once; each round times its share; the rounds together time the whole.
TEST(RunRound, WarmsUpAndSizesOnceAndEachRoundTimesItsShare) {
  FakeClock clock;
  int64_t calls = 0;
  LatencyOptions o = Timing(0.2, 10);
  o.warmup_time_s = 0.01;
  std::vector<int64_t> per_round_blocks_seen;
  LatencyHooks hooks;
  hooks.on_block = [&](const v1::TimingBlock&, int64_t done) { per_round_blocks_seen.push_back(done); };
  LatencyRunner runner(
      [&] {
        ++calls;
        clock.Advance(0.001);
      },
      o, &clock, hooks);
  const RoundPlan plan = PlanRounds(5, false, o);
  runner.WarmUp();
  const int64_t warmup_calls = calls;
  const int64_t block = runner.SizeBlock();
  const int64_t calls_after_sizing = calls;
  EXPECT_EQ(warmup_calls, 10);
  EXPECT_EQ(block, 1) << "1 ms >= 0.2 s / 1000 with no clock overhead";
  for (int round = 1; round <= plan.rounds; ++round) {
    per_round_blocks_seen.clear();
    const int64_t before = runner.blocks_done();
    const int64_t added =
        runner.RunRound(RoundTarget(plan, round, runner.timed_s()), plan.round_min_blocks, plan.round_max_run_time_s);
    EXPECT_EQ(added, runner.blocks_done() - before);
    EXPECT_NEAR(static_cast<double>(added) * 0.001, 0.04, 0.0015) << "round " << round << " times 0.2 s / 5";
    ASSERT_FALSE(per_round_blocks_seen.empty());
    EXPECT_EQ(per_round_blocks_seen.front(), 1) << "on_block counts this round's blocks";
    EXPECT_EQ(runner.calls_per_block(), block) << "the block size is kept";
  }
  EXPECT_NEAR(static_cast<double>(calls - calls_after_sizing) * 0.001, 0.2, 0.006)
      << "the rounds together time min_run_time_s once, not once per round";
  google::protobuf::RepeatedPtrField<v1::Warning> warnings;
  const v1::Timing t = runner.Finish(&warnings);
  EXPECT_EQ(t.warmup_calls(), 10) << "one warm-up";
  EXPECT_EQ(t.blocks_size(), runner.blocks_done());
}

}  // namespace
}  // namespace torchscan
