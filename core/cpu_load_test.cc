#include "core/cpu_load.h"

#include <gtest/gtest.h>

namespace torchscan {
namespace {

// Synthetic /proc/stat: user nice system idle iowait irq softirq steal guest guest_nice.
constexpr char kStatStart[] =
    "cpu  400 0 100 9000 0 0 0 0 0 0\n"
    "cpu0 100 10 50 4000 7 3 2 99 0 0\n"
    "cpu1 200 0 30 4000 0 0 0 0 0 0\n"
    "cpu2 500 0 0 1000 0 0 0 0 0 0\n"
    "intr 12345 0 0\n"
    "ctxt 999\n";
constexpr char kStatEnd[] =
    "cpu  900 0 200 9100 0 0 0 0 0 0\n"
    "cpu0 150 10 60 4050 7 3 2 150 0 0\n"  // +60 busy (steal and idle not busy)
    "cpu1 280 0 30 4020 0 0 0 0 0 0\n"     // +80 busy
    "cpu2 900 0 0 1000 0 0 0 0 0 0\n"      // +400, outside the set below
    "intr 12345 0 0\n";

CpuLoadSample Sample(const char* stat, int64_t self, double load, double t) {
  CpuLoadSample s;
  s.busy_ticks = *ParseProcStatBusyTicks(stat);
  s.self_ticks = self;
  s.loadavg_1m = load;
  s.monotonic_s = t;
  return s;
}

TEST(ParseProcStatBusyTicks, SumsUserNiceSystemIrqSoftirqPerCpu) {
  absl::StatusOr<std::map<int, int64_t>> busy = ParseProcStatBusyTicks(kStatStart);
  ASSERT_TRUE(busy.ok()) << busy.status();
  EXPECT_EQ(*busy, (std::map<int, int64_t>{{0, 165}, {1, 230}, {2, 500}}));
}

TEST(ParseProcStatBusyTicks, RefusesShortOrBadLinesAndNoCpuLines) {
  EXPECT_FALSE(ParseProcStatBusyTicks("cpu0 1 2 3\n").ok());
  EXPECT_FALSE(ParseProcStatBusyTicks("cpu0 1 2 x 4 5 6 7\n").ok());
  EXPECT_FALSE(ParseProcStatBusyTicks("cpu 1 2 3 4 5 6 7\nintr 1\n").ok());
}

TEST(ParseSelfStatCpuTicks, ReadsUtimePlusStimeAfterACommWithSpaces) {
  const char stat[] = "4242 (torch worker) (x) R 1 2 3 4 5 6 7 8 9 10 1234 56 0 0 20 0 3 0 100";
  absl::StatusOr<int64_t> ticks = ParseSelfStatCpuTicks(stat);
  ASSERT_TRUE(ticks.ok()) << ticks.status();
  EXPECT_EQ(*ticks, 1234 + 56);
  EXPECT_FALSE(ParseSelfStatCpuTicks("4242 (w) R 1 2").ok());
  EXPECT_FALSE(ParseSelfStatCpuTicks("no comm").ok());
}

TEST(ParseLoadavg1m, ReadsTheFirstFigure) {
  EXPECT_DOUBLE_EQ(*ParseLoadavg1m("1.25 0.80 0.50 2/345 6789\n"), 1.25);
  EXPECT_FALSE(ParseLoadavg1m("").ok());
  EXPECT_FALSE(ParseLoadavg1m("-1 0 0").ok());
}

TEST(DescribeCpuSet, CollapsesRuns) {
  EXPECT_EQ(DescribeCpuSet({7, 0, 1, 4, 6, 1}), "0-1,4,6-7");
  EXPECT_EQ(DescribeCpuSet({3}), "3");
  EXPECT_EQ(DescribeCpuSet({}), "");
}

TEST(LoadBetween, OtherWorkIsBusyTimeOfTheSetMinusOwnTime) {
  // CPUs 0-1 gained 140 busy ticks in 1 s at 100 ticks/s; this process used 60 of them:
  // others used 0.8 s of 2 CPU-seconds.
  absl::StatusOr<v1::TimingLoad> load =
      LoadBetween(Sample(kStatStart, 1000, 0.5, 10.0), Sample(kStatEnd, 1060, 1.5, 11.0), {1, 0}, 100);
  ASSERT_TRUE(load.ok()) << load.status();
  EXPECT_DOUBLE_EQ(load->other_cpu_s(), 0.8);
  EXPECT_DOUBLE_EQ(load->other_cpu_share(), 0.4);
  EXPECT_DOUBLE_EQ(load->interval_s(), 1.0);
  EXPECT_EQ(load->cpus(), "0-1");
  EXPECT_EQ(load->cpu_count(), 2);
  EXPECT_DOUBLE_EQ(load->loadavg_1m_start(), 0.5);
  EXPECT_DOUBLE_EQ(load->loadavg_1m_end(), 1.5);
}

TEST(LoadBetween, ClampsTickSkewButKeepsTheRawSeconds) {
  // Own time counted 150 ticks while the CPUs gained 140: skew, not negative work.
  absl::StatusOr<v1::TimingLoad> low =
      LoadBetween(Sample(kStatStart, 0, 0, 0), Sample(kStatEnd, 150, 0, 1), {0, 1}, 100);
  ASSERT_TRUE(low.ok());
  EXPECT_DOUBLE_EQ(low->other_cpu_s(), -0.1);
  EXPECT_EQ(low->other_cpu_share(), 0);
  // CPU 2 alone gained 400 ticks in 1 s: more than the whole, clamped to 1.
  absl::StatusOr<v1::TimingLoad> high = LoadBetween(Sample(kStatStart, 0, 0, 0), Sample(kStatEnd, 0, 0, 1), {2}, 100);
  ASSERT_TRUE(high.ok());
  EXPECT_EQ(high->other_cpu_share(), 1);
}

TEST(LoadBetween, RefusesMissingCpusBackwardCountersAndEmptyIntervals) {
  const CpuLoadSample a = Sample(kStatStart, 0, 0, 0), b = Sample(kStatEnd, 0, 0, 1);
  EXPECT_FALSE(LoadBetween(a, b, {5}, 100).ok());
  EXPECT_FALSE(LoadBetween(a, b, {}, 100).ok());
  EXPECT_FALSE(LoadBetween(b, a, {0}, 100).ok());
  EXPECT_FALSE(LoadBetween(a, a, {0}, 100).ok());
  EXPECT_FALSE(LoadBetween(a, b, {0}, 0).ok());
}

TEST(PoolTimingLoad, SumsRoundsAndRecomputesTheShare) {
  v1::TimingLoad pooled, first, second;
  first.set_other_cpu_s(0.2);
  first.set_interval_s(1);
  first.set_cpu_count(2);
  first.set_cpus("0-1");
  first.set_loadavg_1m_start(0.1);
  first.set_loadavg_1m_end(0.2);
  second = first;
  second.set_other_cpu_s(1.0);
  second.set_loadavg_1m_end(0.9);
  PoolTimingLoad(first, &pooled);
  EXPECT_DOUBLE_EQ(pooled.interval_s(), 1);
  PoolTimingLoad(second, &pooled);
  EXPECT_DOUBLE_EQ(pooled.other_cpu_s(), 1.2);
  EXPECT_DOUBLE_EQ(pooled.interval_s(), 2);
  EXPECT_DOUBLE_EQ(pooled.other_cpu_share(), 0.3);
  EXPECT_DOUBLE_EQ(pooled.loadavg_1m_start(), 0.1);
  EXPECT_DOUBLE_EQ(pooled.loadavg_1m_end(), 0.9);
}

v1::TimingLoad LoadWithShare(double share) {
  v1::TimingLoad load;
  load.set_other_cpu_share(share);
  load.set_interval_s(2);
  load.set_cpu_count(2);
  load.set_cpus("0-1");
  return load;
}

TEST(BusyMachineWarning, OnlyAboveTheLimitAndNamingTheFigure) {
  EXPECT_FALSE(BusyMachineWarning(LoadWithShare(kBusyMachineOtherCpuShare), "the baseline's").has_value());
  EXPECT_FALSE(BusyMachineWarning(LoadWithShare(0.1), "the baseline's").has_value());
  std::optional<v1::Warning> w = BusyMachineWarning(LoadWithShare(0.38), "the baseline's");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->code(), "busy_machine");
  EXPECT_NE(w->message().find("other processes used 38% of CPUs 0-1 during the baseline's timing"), std::string::npos)
      << w->message();
  EXPECT_TRUE(BusyMachineWarning(LoadWithShare(0.2), "x", 0.1).has_value());
}

TEST(BusyMachineWarning, NoneWhenNothingWasSampled) {
  v1::TimingLoad empty;
  EXPECT_FALSE(BusyMachineWarning(empty, "the run's", 0).has_value());
}

}  // namespace
}  // namespace torchscan
