#include "devices/device_noise.h"

#include <gtest/gtest.h>

namespace torchscan::devices {
namespace {

TEST(DeviceNoiseWarnings, NoneWhenNothingMovedOrNothingWasRead) {
  DeviceState quiet{1980, 0, 0};
  EXPECT_TRUE(DeviceNoiseWarnings(quiet, quiet, "cuda:0").empty());
  EXPECT_TRUE(DeviceNoiseWarnings({}, {}, "cuda:0").empty());
  DeviceState small_move{1950, 0, 0};  // 1.5 %: within kClockChangeShare
  EXPECT_TRUE(DeviceNoiseWarnings(quiet, small_move, "cuda:0").empty());
}

TEST(DeviceNoiseWarnings, AClockThatMovedWhileTimingIsNamedWithItsFigures) {
  const auto w = DeviceNoiseWarnings({1980, 0, 0}, {1410, 0, 0}, "cuda:1");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].code(), "gpu_clock_changed");
  EXPECT_NE(w[0].message().find("cuda:1 moved from 1980 to 1410 MHz"), std::string::npos) << w[0].message();
  EXPECT_NE(w[0].message().find("nvidia-smi --lock-gpu-clocks"), std::string::npos) << w[0].message();
}

TEST(DeviceNoiseWarnings, ThrottlingNamesEachReasonOnce) {
  const auto w = DeviceNoiseWarnings({1980, kThrottleSoftwareThermal, 0},
                                     {1980, kThrottleHardwareThermal | kThrottleSoftwarePowerCap | 0x1, 0}, "cuda:0");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].code(), "gpu_throttled");
  EXPECT_NE(w[0].message().find("slowed by thermal slowdown, power cap while"), std::string::npos) << w[0].message();
  // Idle (0x1) and application clocks (0x2) do not slow a run.
  EXPECT_TRUE(DeviceNoiseWarnings({1980, 0x3, 0}, {1980, 0x1, 0}, "cuda:0").empty());
}

TEST(DeviceNoiseWarnings, AnotherProcessOnTheGpuIsAWarning) {
  const auto w = DeviceNoiseWarnings({1980, 0, 0}, {1980, 0, 2}, "cuda:0");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].code(), "gpu_shared");
  EXPECT_EQ(w[0].message().rfind("2 other processes had work on cuda:0", 0), 0u) << w[0].message();
}

}  // namespace
}  // namespace torchscan::devices
