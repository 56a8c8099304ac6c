#include "core/latency_runner.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/fake_clock.h"

namespace torchscan {
namespace {

constexpr double kMs = 1.0 / 1024;  // dyadic "millisecond": sums stay exact

LatencyOptions Options() {
  LatencyOptions o;
  o.warmup_time_s = 0;
  return o;
}

TEST(LatencyRunner, WarmUpRunsAtLeastOneCall) {
  FakeClock clock;
  int calls = 0;
  LatencyRunner runner([&] { ++calls; }, Options(), &clock);
  runner.WarmUp();
  EXPECT_EQ(calls, 1);
}

TEST(LatencyRunner, WarmUpRunsForWarmupTime) {
  FakeClock clock;
  int calls = 0;
  LatencyOptions o = Options();
  o.warmup_time_s = 10 * kMs;
  LatencyRunner runner(
      [&] {
        ++calls;
        clock.Advance(kMs);
      },
      o, &clock);
  runner.WarmUp();
  EXPECT_EQ(calls, 10);
}

TEST(LatencyRunner, SlowCallsGetOneCallPerBlock) {
  FakeClock clock;
  LatencyRunner runner([&] { clock.Advance(kMs); }, Options(), &clock);
  EXPECT_EQ(runner.SizeBlock(), 1);
}

TEST(LatencyRunner, FastCallsGrowTheBlockUntilOverheadIsNegligible) {
  // Clock overhead 1e-8 s per read, 1e-6 s per call: 100 calls make the overhead 1e-4 of
  // the block, but a block must also last min_run_time / 1000 = 2e-4 s, so 1000 calls.
  FakeClock clock(1e-8);
  LatencyRunner runner([&] { clock.Advance(1e-6); }, Options(), &clock);
  EXPECT_EQ(runner.SizeBlock(), 1000);
}

TEST(LatencyRunner, FixedCallsPerBlockIsUsedAsIs) {
  FakeClock clock;
  LatencyOptions o = Options();
  o.fixed_calls_per_block = 7;
  LatencyRunner runner([&] { clock.Advance(kMs); }, o, &clock);
  EXPECT_EQ(runner.SizeBlock(), 7);
}

TEST(LatencyRunner, RunsBlocksUntilMinRunTime) {
  FakeClock clock;
  LatencyOptions o = Options();
  o.min_run_time_s = 0.25;
  absl::StatusOr<v1::BenchmarkReport> r = MeasureLatency([&] { clock.Advance(kMs); }, o, &clock);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->timing().calls_per_block(), 1);
  EXPECT_EQ(r->timing().blocks_size(), 256);  // 0.25 s / (1/1024 s)
  EXPECT_EQ(r->timing().summary().block_count(), 256);
  EXPECT_DOUBLE_EQ(r->timing().summary().median_s(), kMs);
  EXPECT_DOUBLE_EQ(r->timing().timed_total_s(), 0.25);
  EXPECT_TRUE(r->warnings().empty());
}

TEST(LatencyRunner, RunsAtLeastMinBlocks) {
  FakeClock clock;
  LatencyOptions o = Options();
  o.min_blocks = 12;
  absl::StatusOr<v1::BenchmarkReport> r = MeasureLatency([&] { clock.Advance(0.5); }, o, &clock);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->timing().blocks_size(), 12);
}

TEST(LatencyRunner, MaxRunTimeStopsEarlyWithWarning) {
  FakeClock clock;
  LatencyOptions o = Options();
  o.max_run_time_s = 0.5;
  absl::StatusOr<v1::BenchmarkReport> r = MeasureLatency([&] { clock.Advance(0.125); }, o, &clock);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->timing().blocks_size(), 4);
  ASSERT_EQ(r->warnings_size(), 1);
  EXPECT_EQ(r->warnings(0).code(), "few_blocks");
}

TEST(LatencyRunner, ThroughputIsWorkUnitsOverMedian) {
  FakeClock clock;
  LatencyOptions o = Options();
  o.work_units = 32;
  o.work_unit = "samples";
  absl::StatusOr<v1::BenchmarkReport> r = MeasureLatency([&] { clock.Advance(kMs); }, o, &clock);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->timing().throughput(), 32 * 1024);
  EXPECT_EQ(r->timing().throughput_unit(), "samples/s");
  EXPECT_EQ(r->work_unit(), "samples");
  EXPECT_EQ(r->work_units(), 32);
  EXPECT_EQ(r->settings().timing().clock(), "fake");
  EXPECT_EQ(r->settings().timing().min_blocks(), 10);
}

TEST(LatencyRunner, NoisyCallsWarnAboutHighIqr) {
  FakeClock clock;
  LatencyOptions o = Options();
  o.fixed_calls_per_block = 1;
  int i = 0;
  absl::StatusOr<v1::BenchmarkReport> r = MeasureLatency([&] { clock.Advance((i++ % 2 ? 1 : 3) * kMs); }, o, &clock);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_FALSE(r->warnings().empty());
  EXPECT_EQ(r->warnings(0).code(), "high_iqr");
  // The likely cause (core/spread_cause.h); the advice names the client's flag and the job
  // file's field beside it.
  EXPECT_NE(r->warnings(0).message().find("; likely cause: "), std::string::npos) << r->warnings(0).message();
  EXPECT_NE(r->warnings(0).message().find("raise --min-run-time (min_run_time_s"), std::string::npos)
      << r->warnings(0).message();
}

TEST(LatencyRunner, HooksRunAtEveryBlock) {
  FakeClock clock;
  int syncs = 0;
  std::vector<int64_t> seen;
  LatencyHooks hooks;
  hooks.timer = HostClockTimer(
      &clock, [&] { ++syncs; }, "counted");
  hooks.on_block = [&](const v1::TimingBlock&, int64_t done) { seen.push_back(done); };
  LatencyOptions o = Options();
  o.fixed_calls_per_block = 1;
  absl::StatusOr<v1::BenchmarkReport> r = MeasureLatency([&] { clock.Advance(0.25); }, o, &clock, hooks);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(seen, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(syncs, 1 + 10);  // warm-up end, then every block
}

// A device's timer (devices/device.h: CUDA events) gives the blocks their durations, not the
// host clock: here every block "takes" 3 ms of device time while the host clock moves 1 ms.
class DeviceTimer : public BlockTimer {
 public:
  void Start() override { ++starts; }
  double Stop() override { return 3 * kMs; }
  void Wait() override { ++waits; }
  std::string Describe() const override { return "device events"; }
  int starts = 0;
  int waits = 0;
};

TEST(LatencyRunner, BlocksTakeTheirDurationFromTheTimer) {
  FakeClock clock;
  auto timer = std::make_shared<DeviceTimer>();
  LatencyHooks hooks;
  hooks.timer = timer;
  LatencyOptions o = Options();
  o.fixed_calls_per_block = 2;
  o.min_run_time_s = 30 * kMs;
  absl::StatusOr<v1::BenchmarkReport> r = MeasureLatency([&] { clock.Advance(kMs / 2); }, o, &clock, hooks);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->timing().blocks_size(), 10);
  for (const v1::TimingBlock& b : r->timing().blocks()) EXPECT_EQ(b.duration_s(), 3 * kMs);
  EXPECT_EQ(r->timing().summary().median_s(), 1.5 * kMs);
  EXPECT_EQ(timer->starts, 10);
  EXPECT_EQ(timer->waits, 1);  // after warm-up
}

TEST(LatencyRunner, CallExceptionsPropagate) {
  FakeClock clock;
  EXPECT_THROW(MeasureLatency([] { throw std::runtime_error("boom"); }, Options(), &clock).IgnoreError(),
               std::runtime_error);
}

TEST(SummarizeBlocks, PerCallStatisticsAreExact) {
  google::protobuf::RepeatedPtrField<v1::TimingBlock> blocks;
  for (auto [calls, duration] : std::vector<std::pair<int, double>>{{2, 4}, {1, 1}, {4, 12}}) {
    v1::TimingBlock* b = blocks.Add();
    b->set_calls(calls);
    b->set_duration_s(duration);
  }
  const v1::TimingSummary s = SummarizeBlocks(blocks);  // per call: 2, 1, 3
  EXPECT_DOUBLE_EQ(s.median_s(), 2);
  EXPECT_DOUBLE_EQ(s.q1_s(), 1.5);
  EXPECT_DOUBLE_EQ(s.q3_s(), 2.5);
  EXPECT_DOUBLE_EQ(s.iqr_s(), 1);
  EXPECT_DOUBLE_EQ(s.mean_s(), 2);
  EXPECT_DOUBLE_EQ(s.min_s(), 1);
  EXPECT_DOUBLE_EQ(s.max_s(), 3);
  EXPECT_EQ(s.block_count(), 3);
  EXPECT_EQ(s.total_calls(), 7);
  EXPECT_NE(s.quantile_method().find("type 7"), std::string::npos);
}

TEST(ValidateLatencyOptions, EachBadFieldIsNamed) {
  const std::vector<std::pair<std::function<void(LatencyOptions&)>, std::string>> cases = {
      {[](LatencyOptions& o) { o.min_run_time_s = 0; }, "min_run_time_s"},
      {[](LatencyOptions& o) { o.min_run_time_s = std::nan(""); }, "min_run_time_s"},
      {[](LatencyOptions& o) { o.min_blocks = 0; }, "min_blocks"},
      {[](LatencyOptions& o) { o.max_run_time_s = -1; }, "max_run_time_s"},
      {[](LatencyOptions& o) { o.max_run_time_s = 0.1; }, "max_run_time_s"},
      {[](LatencyOptions& o) { o.warmup_time_s = -1; }, "warmup_time_s"},
      {[](LatencyOptions& o) { o.fixed_calls_per_block = -3; }, "fixed_calls_per_block"},
      {[](LatencyOptions& o) { o.work_units = 0; }, "work_units"},
      {[](LatencyOptions& o) { o.work_unit = ""; }, "work_unit"},
  };
  for (const auto& [mutate, field] : cases) {
    LatencyOptions o;
    mutate(o);
    const absl::Status s = ValidateLatencyOptions(o);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << field;
    EXPECT_EQ(s.message().substr(0, field.size() + 1), field + ":") << s;
  }
  EXPECT_TRUE(ValidateLatencyOptions(LatencyOptions{}).ok());
}

}  // namespace
}  // namespace torchscan
