#include "core/spread_cause.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/timing_rounds.h"

namespace torchscan {
namespace {

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// `blocks` one-call blocks whose times alternate 1 ms and `high_ms`: an IQR of high - 1 ms
// (type-7 quartiles of a two-valued run), the summary set as the latency runner would.
v1::Timing Spread(int blocks, double high_ms) {
  v1::Timing t;
  for (int i = 0; i < blocks; ++i) {
    v1::TimingBlock* b = t.add_blocks();
    b->set_calls(1);
    b->set_duration_s(i % 2 == 0 ? 1e-3 : high_ms * 1e-3);
  }
  t.mutable_summary()->set_median_s((1 + high_ms) / 2 * 1e-3);
  t.mutable_summary()->set_iqr_s((high_ms - 1) * 1e-3);
  return t;
}

void Load(double share, v1::Timing* t) {
  t->mutable_load()->set_interval_s(2);
  t->mutable_load()->set_other_cpu_share(share);
  t->mutable_load()->set_cpus("0-1");
}

TEST(HighIqrMessage, NoneAtOrBelowTenPercent) {
  v1::Timing t = Spread(40, 1.1);  // IQR 0.1 ms of a 1.05 ms median: 9.5 %
  EXPECT_EQ(HighIqrMessage(t), "");
  t.mutable_summary()->set_median_s(0);
  EXPECT_EQ(HighIqrMessage(t), "");
}

TEST(HighIqrMessage, FewBlocksComeFirst) {
  v1::Timing t = Spread(10, 1.5);
  Load(0.5, &t);
  const std::string m = HighIqrMessage(t);
  EXPECT_EQ(m.rfind("IQR is 40.0% of the median (above 10%); likely cause: only 10 blocks", 0), 0u) << m;
  EXPECT_TRUE(Has(m, "raise --min-run-time")) << m;
}

TEST(HighIqrMessage, LoadSeenIsNamedWithItsShare) {
  v1::Timing t = Spread(40, 1.5);
  Load(0.51, &t);
  EXPECT_TRUE(Has(HighIqrMessage(t), "likely cause: other work: others used 51% of CPUs 0-1 while it was timed"))
      << HighIqrMessage(t);
}

TEST(HighIqrMessage, WithoutLoadTheSpreadIsTheWorkloadsOwn) {
  v1::Timing t = Spread(40, 1.5);
  Load(0.02, &t);
  const std::string m = HighIqrMessage(t);
  EXPECT_TRUE(Has(m, "likely cause: the workload itself: others used 2% of CPUs 0-1, blocks vary")) << m;
  EXPECT_FALSE(Has(m, "noisy")) << m;
  v1::Timing unsampled = Spread(40, 1.5);
  EXPECT_TRUE(Has(HighIqrMessage(unsampled), "likely cause: the workload itself: blocks vary"));
}

TEST(HighIqrMessage, RoundsWhoseMediansMoveAreDrift) {
  // Eight rounds of 5 blocks: steady within a round, 1 ms or 1.5 ms from round to round.
  v1::Timing t;
  for (int round = 0; round < 8; ++round)
    for (int i = 0; i < 5; ++i) {
      v1::TimingBlock* b = t.add_blocks();
      b->set_calls(1);
      b->set_duration_s(round % 2 == 0 ? 1e-3 : 1.5e-3);
    }
  for (int round = 0; round < 8; ++round) AddTimingRound(round + 1, "first", 5 * round, 5, 1, &t);
  t.mutable_summary()->set_median_s(1.25e-3);
  t.mutable_summary()->set_iqr_s(0.5e-3);
  Load(0.0, &t);
  const std::string m = HighIqrMessage(t);
  EXPECT_TRUE(Has(m,
                  "likely cause: drift: the round medians spread by 40.0% of their median, blocks within a round "
                  "by 0.0%"))
      << m;
  // Rounds of 4 blocks that each hold both speeds: equal medians, the spread is within rounds.
  v1::Timing mixed = Spread(40, 1.5);
  for (int round = 0; round < 10; ++round) AddTimingRound(round + 1, "first", 4 * round, 4, 1, &mixed);
  EXPECT_TRUE(Has(HighIqrMessage(mixed), "the workload itself")) << HighIqrMessage(mixed);
}

TEST(SetHighIqrWarning, KeepsExactlyOneAndOtherWarningsInOrder) {
  google::protobuf::RepeatedPtrField<v1::Warning> warnings;
  warnings.Add()->set_code("few_blocks");
  v1::Warning* old = warnings.Add();
  old->set_code("high_iqr");
  old->set_message("IQR is 40.0% of the median: the machine was noisy");
  warnings.Add()->set_code("high_iqr");
  warnings.Add()->set_code("busy_machine");
  v1::Timing t = Spread(40, 1.5);
  Load(0.51, &t);
  SetHighIqrWarning(t, &warnings);
  ASSERT_EQ(warnings.size(), 3);
  EXPECT_EQ(warnings[0].code(), "few_blocks");
  EXPECT_EQ(warnings[1].code(), "high_iqr");
  EXPECT_EQ(warnings[1].message(), HighIqrMessage(t));
  EXPECT_EQ(warnings[2].code(), "busy_machine");
  SetHighIqrWarning(Spread(40, 1.05), &warnings);  // spread no longer high: the warning goes
  ASSERT_EQ(warnings.size(), 2);
  EXPECT_EQ(warnings[1].code(), "busy_machine");
  SetHighIqrWarning(t, &warnings);
  EXPECT_EQ(warnings[2].code(), "high_iqr");
}

}  // namespace
}  // namespace torchscan
