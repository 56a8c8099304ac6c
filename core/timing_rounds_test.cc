#include "core/timing_rounds.h"

#include <gtest/gtest.h>

#include "core/latency_runner.h"

namespace torchscan {
namespace {

v1::BenchmarkReport Pass(std::initializer_list<double> per_call, const std::string& warning = "") {
  v1::BenchmarkReport r;
  r.set_work_units(4);
  for (double d : per_call) {
    v1::TimingBlock* b = r.mutable_timing()->add_blocks();
    b->set_calls(1);
    b->set_duration_s(d);
    r.mutable_timing()->set_timed_total_s(r.timing().timed_total_s() + d);
  }
  r.mutable_timing()->set_warmup_calls(3);
  *r.mutable_timing()->mutable_summary() = SummarizeBlocks(r.timing().blocks());
  if (!warning.empty()) r.add_warnings()->set_code(warning);
  return r;
}

TEST(AddTimingRound, PoolsBlocksInOrderAndKeepsEachRoundsMedian) {
  v1::BenchmarkReport pooled;
  AddTimingRound(Pass({1, 2, 3}, "high_iqr"), 1, "first", &pooled);
  AddTimingRound(Pass({5, 6, 7, 8}, "high_iqr"), 2, "second", &pooled);
  ASSERT_EQ(pooled.timing().blocks_size(), 7);
  EXPECT_DOUBLE_EQ(pooled.timing().blocks(3).duration_s(), 5);
  EXPECT_EQ(pooled.timing().summary().block_count(), 7);
  EXPECT_DOUBLE_EQ(pooled.timing().summary().median_s(), 5);
  EXPECT_DOUBLE_EQ(pooled.timing().throughput(), 4.0 / 5);
  EXPECT_DOUBLE_EQ(pooled.timing().timed_total_s(), 32);
  EXPECT_EQ(pooled.timing().warmup_calls(), 6);
  EXPECT_EQ(pooled.warnings_size(), 1);
  ASSERT_EQ(pooled.timing().rounds_size(), 2);
  EXPECT_EQ(pooled.timing().rounds(0).position(), "first");
  EXPECT_DOUBLE_EQ(pooled.timing().rounds(0).median_s(), 2);
  EXPECT_EQ(pooled.timing().rounds(1).first_block(), 3);
  EXPECT_EQ(pooled.timing().rounds(1).block_count(), 4);
  EXPECT_DOUBLE_EQ(pooled.timing().rounds(1).median_s(), 6.5);
}

TEST(AddTimingRound, PoolsTheLoadOfEveryRound) {
  v1::BenchmarkReport a = Pass({1, 2}), b = Pass({3, 4});
  for (auto [r, other_s] : {std::pair{&a, 0.1}, std::pair{&b, 0.7}}) {
    v1::TimingLoad* load = r->mutable_timing()->mutable_load();
    load->set_other_cpu_s(other_s);
    load->set_interval_s(1);
    load->set_cpu_count(1);
    load->set_cpus("0");
  }
  v1::BenchmarkReport pooled;
  AddTimingRound(a, 1, "first", &pooled);
  AddTimingRound(b, 2, "second", &pooled);
  EXPECT_DOUBLE_EQ(pooled.timing().load().interval_s(), 2);
  EXPECT_DOUBLE_EQ(pooled.timing().load().other_cpu_share(), 0.4);
}

TEST(AlternatingOrder, AlternatesWhoGoesFirst) {
  EXPECT_EQ(AlternatingOrder(1, false), "baseline, candidate");
  EXPECT_EQ(AlternatingOrder(3, false), "baseline, candidate, candidate, baseline, baseline, candidate");
  EXPECT_EQ(AlternatingOrder(2, true), "candidate, baseline, baseline, candidate");
}

}  // namespace
}  // namespace torchscan
