// Why both runs of a comparison time the same calls per block (core/round_plan.h EqualCalls),
// on a synthetic clock: two runs of the same 0.3 ms call, timed in alternating rounds while the
// machine preempts one call in ten for 3 ms (what another process does to a busy 2-core machine).
// With 29-call blocks against 1-call blocks (what block sizing chose under a build's load, issue
// 40) the paired rounds call equal work 2x slower on the multi-call side; at equal counts they
// agree within 1 %.
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/fake_clock.h"
#include "core/latency_runner.h"
#include "core/round_plan.h"
#include "core/statistics.h"
#include "core/timing_rounds.h"

namespace torchscan {
namespace {

constexpr double kCallS = 0.0003;
constexpr double kPreemptionS = 0.003;
constexpr int kRounds = 40;

// The median over rounds of run 2's round median / run 1's, both runs calling the same
// 0.3 ms work on one preempting clock, in ABBA rounds of 30 ms each.
double MedianRoundRatio(int64_t calls_1, int64_t calls_2) {
  FakeClock clock;
  std::mt19937 random(40);
  std::bernoulli_distribution preempted(0.1);
  const auto call = [&] { clock.Advance(kCallS + (preempted(random) ? kPreemptionS : 0)); };
  LatencyOptions o;
  o.warmup_time_s = 0;
  LatencyRunner run_1(call, o, &clock), run_2(call, o, &clock);
  run_1.SetCallsPerBlock(calls_1);
  run_2.SetCallsPerBlock(calls_2);
  std::vector<double> ratios;
  for (int round = 0; round < kRounds; ++round) {
    double median[2];
    for (int i = 0; i < 2; ++i) {
      const bool second = (i == 1) != (round % 2 == 1);
      LatencyRunner& run = second ? run_2 : run_1;
      const int64_t first = run.blocks_done();
      const int64_t added = run.RunRound(0.03, 1, 0);
      median[second] = RoundMedian(run.blocks(), first, added);
    }
    ratios.push_back(median[1] / median[0]);
  }
  return *Quantile(ratios, 0.5);
}

TEST(EqualFooting, UnequalBlocksMakeEqualWorkLookSlowerOnTheLongBlocksSide) {
  // Run 1 sized 29 calls, run 2 one call: run 2's median skips the preemptions that run 1's
  // block means carry (0.3 ms + 0.1 x 3 ms / call): run 2 looks twice as fast.
  EXPECT_LT(MedianRoundRatio(29, 1), 0.6);
  EXPECT_GT(MedianRoundRatio(1, 10), 1.6);  // and the other way round
}

TEST(EqualFooting, EqualCallsPerBlockShowNoBias) {
  for (const auto& [a, b] : {std::pair<int64_t, int64_t>{29, 1}, {1, 10}}) {
    const int64_t calls = EqualCalls(a, b);
    const double ratio = MedianRoundRatio(calls, calls);
    EXPECT_NEAR(ratio, 1.0, 0.01) << a << " and " << b << " calls, both timed at " << calls;
  }
}

}  // namespace
}  // namespace torchscan
