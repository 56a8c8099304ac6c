#include "daemon/device_scheduler.h"

#include <gtest/gtest.h>

namespace torchscan::daemon {
namespace {

using Names = std::vector<std::string>;

const Names kDevices = {"cpu", "cuda:0", "cuda:1"};

v1::JobSpec MeasureOn(const std::string& device) {
  v1::JobSpec spec;
  spec.mutable_measure()->mutable_workload()->set_device(device);
  return spec;
}

v1::JobSpec CompareOn(const std::string& baseline, const std::string& candidate) {
  v1::JobSpec spec;
  spec.mutable_compare()->mutable_baseline()->set_device(baseline);
  spec.mutable_compare()->mutable_candidate()->set_device(candidate);
  return spec;
}

TEST(JobClaims, AGpuJobClaimsItsGpus) {
  EXPECT_EQ(JobClaims(MeasureOn("cuda:1"), kDevices), (Names{"cuda:1"}));
  EXPECT_EQ(JobClaims(MeasureOn("cuda"), kDevices), (Names{"cuda:0"}));
  EXPECT_EQ(JobClaims(CompareOn("cuda:1", "cuda:0"), kDevices), (Names{"cuda:0", "cuda:1"}));
  EXPECT_EQ(JobClaims(CompareOn("cuda:1", "cuda:1"), kDevices), (Names{"cuda:1"}));
}

TEST(JobClaims, AJobThatUsesTheCpuClaimsEveryDevice) {
  EXPECT_EQ(JobClaims(MeasureOn(""), kDevices), kDevices);
  EXPECT_EQ(JobClaims(MeasureOn("cpu"), (Names{"cuda:0", "cpu"})), (Names{"cpu", "cuda:0"}));
  EXPECT_EQ(JobClaims(CompareOn("cpu", "cuda:0"), kDevices), kDevices);
  EXPECT_EQ(JobClaims(v1::JobSpec(), kDevices), kDevices);  // calibrate the built-in default
  // Not offered, or not a device: it runs (and its worker says why it cannot) rather than waiting forever.
  EXPECT_EQ(JobClaims(MeasureOn("cuda:7"), kDevices), kDevices);
  EXPECT_EQ(JobClaims(MeasureOn("tpu"), kDevices), kDevices);
}

TEST(DeviceScheduler, JobsOnDistinctGpusRunAtOnce) {
  DeviceScheduler s(kDevices, 10, 10);
  ASSERT_TRUE(s.Push("a", "u", {"cuda:0"}).ok());
  ASSERT_TRUE(s.Push("b", "u", {"cuda:1"}).ok());
  ASSERT_TRUE(s.Push("c", "u", {"cuda:0"}).ok());
  EXPECT_EQ(s.Start("cuda:1"), "b");  // a's turn first, but on another GPU: b need not wait
  EXPECT_EQ(s.Start("cuda:0"), "a");
  EXPECT_EQ(s.Start("cuda:1"), std::nullopt);
  EXPECT_EQ(s.Start("cuda:0"), std::nullopt);  // a runs there
  EXPECT_EQ(s.Running(), (Names{"a", "b"}));
  EXPECT_EQ(s.RunningOn("cuda:0"), "a");
  EXPECT_EQ(s.Position("c"), 1);
  s.Finish("a");
  EXPECT_EQ(s.Start("cuda:0"), "c");
}

TEST(DeviceScheduler, ACpuJobWaitsForEveryGpuAndHoldsThemAll) {
  DeviceScheduler s(kDevices, 10, 10);
  ASSERT_TRUE(s.Push("g0", "u", {"cuda:0"}).ok());
  ASSERT_TRUE(s.Push("cpu", "u", kDevices).ok());
  ASSERT_TRUE(s.Push("g1", "u", {"cuda:1"}).ok());
  EXPECT_EQ(s.Start("cuda:0"), "g0");
  // g1 was queued after the CPU job, which shares cuda:1 with it: no overtaking.
  EXPECT_EQ(s.Start("cuda:1"), std::nullopt);
  EXPECT_EQ(s.Start("cpu"), std::nullopt);  // g0 runs
  EXPECT_EQ(s.Position("cpu"), 1);
  EXPECT_EQ(s.Position("g1"), 2);
  s.Finish("g0");
  EXPECT_EQ(s.Start("cuda:1"), std::nullopt);
  EXPECT_EQ(s.Start("cpu"), "cpu");
  EXPECT_EQ(s.RunningOn("cuda:1"), "cpu");
  EXPECT_EQ(s.Start("cuda:1"), std::nullopt);
  s.Finish("cpu");
  EXPECT_EQ(s.Start("cuda:1"), "g1");
}

TEST(DeviceScheduler, AGpuJobQueuedBeforeACpuJobStillStarts) {
  DeviceScheduler s(kDevices, 10, 10);
  ASSERT_TRUE(s.Push("g0", "u", {"cuda:0"}).ok());
  ASSERT_TRUE(s.Push("g1", "u", {"cuda:1"}).ok());
  ASSERT_TRUE(s.Push("cpu", "u", kDevices).ok());
  EXPECT_EQ(s.Start("cuda:0"), "g0");
  EXPECT_EQ(s.Start("cuda:1"), "g1");
  EXPECT_EQ(s.QueuedOn("cuda:0"), 1);
  EXPECT_EQ(s.QueuedOn("cpu"), 1);
}

TEST(DeviceScheduler, UsersTakeTurnsAmongJobsThatMayStart) {
  DeviceScheduler s({"cuda:0"}, 10, 10);
  ASSERT_TRUE(s.Push("a1", "alice", {"cuda:0"}).ok());
  ASSERT_TRUE(s.Push("a2", "alice", {"cuda:0"}).ok());
  ASSERT_TRUE(s.Push("b1", "bob", {"cuda:0"}).ok());
  EXPECT_EQ(s.Start("cuda:0"), "a1");
  s.Finish("a1");
  EXPECT_EQ(s.Start("cuda:0"), "b1");
  s.Finish("b1");
  EXPECT_EQ(s.Start("cuda:0"), "a2");
}

TEST(DeviceScheduler, LimitsAreOverAllDevicesAndRemoveCancels) {
  DeviceScheduler s(kDevices, 2, 10);
  ASSERT_TRUE(s.Push("a", "u", {"cuda:0"}).ok());
  ASSERT_TRUE(s.Push("b", "u", {"cuda:1"}).ok());
  const absl::Status full = s.Push("c", "u", {"cpu"});
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted) << full;
  EXPECT_TRUE(s.Remove("a"));
  EXPECT_FALSE(s.Remove("a"));
  EXPECT_EQ(s.Position("a"), 0);
  EXPECT_TRUE(s.ClaimsOf("a").empty());
  EXPECT_EQ(s.size(), 1u);
  s.Restore("r", "u", {"cuda:0"});
  EXPECT_EQ(s.Start("cuda:0"), "r");
  EXPECT_EQ(s.ClaimsOf("r"), (Names{"cuda:0"}));
}

TEST(DeviceScheduler, AMultiGpuJobRunsOnItsLowestGpuAndHoldsBoth) {
  DeviceScheduler s(kDevices, 10, 10);
  ASSERT_TRUE(s.Push("both", "u", {"cuda:0", "cuda:1"}).ok());
  ASSERT_TRUE(s.Push("g1", "u", {"cuda:1"}).ok());
  EXPECT_EQ(s.Start("cuda:1"), std::nullopt);
  EXPECT_EQ(s.Start("cuda:0"), "both");
  EXPECT_EQ(s.RunningOn("cuda:1"), "both");
  EXPECT_EQ(s.Start("cuda:1"), std::nullopt);
  s.Finish("both");
  EXPECT_EQ(s.Start("cuda:1"), "g1");
}

}  // namespace
}  // namespace torchscan::daemon
