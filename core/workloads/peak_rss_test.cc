#include "core/workloads/peak_rss.h"

#include <cstdlib>
#include <chrono>

#include <gtest/gtest.h>

namespace torchscan::workloads {
namespace {

// Runfiles: bazel test runs in the workspace's runfiles directory.
constexpr char kChild[] = "core/workloads/torchscan_rss_child";
constexpr char kFakeChild[] = "core/workloads/fake_rss_child";

torchscan::v1::WorkloadSpec LinearSpec() {
  torchscan::v1::WorkloadSpec spec;
  spec.mutable_model()->set_builtin(torchscan::v1::ModelSpec::linear);
  return spec;
}

bool DiagnosticsContain(const torchscan::v1::MetricResult& m, const std::string& text) {
  for (const std::string& d : m.diagnostics()) {
    if (d.find(text) != std::string::npos) return true;
  }
  return false;
}

void ExpectUnknown(const torchscan::v1::MetricResult& m, const std::string& reason) {
  EXPECT_FALSE(m.has_value());
  EXPECT_FALSE(m.complete());
  EXPECT_TRUE(DiagnosticsContain(m, reason)) << m.DebugString();
  EXPECT_EQ(m.name(), "peak_rss_bytes");
  EXPECT_EQ(m.method(), "VmHWM of a fresh child process");
}

class FakeChildMode {
 public:
  explicit FakeChildMode(const char* mode) { setenv("FAKE_RSS_CHILD_MODE", mode, 1); }
  ~FakeChildMode() { unsetenv("FAKE_RSS_CHILD_MODE"); }
};

TEST(MeasurePeakRss, LinearChildReportsItsPeak) {
  RssTrialInfo info;
  const auto m = MeasurePeakRss(LinearSpec(), kChild, 100, 120, &info);
  ASSERT_TRUE(m.has_value()) << m.DebugString();
  EXPECT_TRUE(m.complete());
  EXPECT_EQ(m.unit(), "bytes");
  EXPECT_EQ(m.scope(), "process start-up + model/input construction + 100 completed calls; no profiling");
  EXPECT_GT(m.value(), 10.0 * (1 << 20));  // LibTorch alone maps tens of MiB
  EXPECT_EQ(info.exit_code, 0);
  EXPECT_GT(info.wall_s, 0);
  std::printf("linear RSS child: %.1f MiB, %.3f s wall\n", m.value() / (1 << 20), info.wall_s);
}

TEST(MeasurePeakRss, MissingChildIsUnknown) {
  ExpectUnknown(MeasurePeakRss(LinearSpec(), "core/workloads/no_such_child", 100, 10), "missing or not executable");
  ExpectUnknown(MeasurePeakRss(LinearSpec(), "", 100, 10), "missing or not executable");
}

TEST(MeasurePeakRss, CrashingChildIsUnknownWithTheSignal) {
  FakeChildMode mode("crash");
  RssTrialInfo info;
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kFakeChild, 100, 30, &info), "killed by signal 11");
  EXPECT_EQ(info.signal, 11);
}

TEST(MeasurePeakRss, HangingChildIsKilledAtTheTimeout) {
  FakeChildMode mode("hang");
  RssTrialInfo info;
  const auto start = std::chrono::steady_clock::now();
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kFakeChild, 100, 0.5, &info), "timed out after 0.5 s");
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(info.timed_out);
  EXPECT_LT(elapsed, 5.0);
}

TEST(MeasurePeakRss, FailingChildIsUnknownWithItsStderr) {
  FakeChildMode mode("fail");
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kFakeChild, 100, 30), "exited with status 3");
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kFakeChild, 100, 30), "model file vanished");
}

TEST(MeasurePeakRss, GarbageOutputIsUnknown) {
  FakeChildMode mode("garbage");
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kFakeChild, 100, 30), "hello from a confused child");
}

TEST(MeasurePeakRss, FakeChildContractHolds) {
  FakeChildMode mode("ok");
  const auto m = MeasurePeakRss(LinearSpec(), kFakeChild, 7, 30);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m.value(), 4096);
}

TEST(MeasurePeakRss, RealChildWithABogusSpecFailsWithTheBuildError) {
  torchscan::v1::WorkloadSpec spec;
  spec.mutable_model()->mutable_torchscript()->set_path("/nonexistent/model.pt");
  spec.add_inputs()->mutable_generated()->add_shape(4);
  ExpectUnknown(MeasurePeakRss(spec, kChild, 100, 60), "exited with status 2");
  ExpectUnknown(MeasurePeakRss(spec, kChild, 100, 60), "model.torchscript.path");
}

TEST(MeasurePeakRss, BadArgumentsAreUnknown) {
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kChild, 0, 10), "at least 1 call");
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kChild, 100, 0), "positive timeout");
}

}  // namespace
}  // namespace torchscan::workloads
