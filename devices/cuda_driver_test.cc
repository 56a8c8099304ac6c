#include "devices/cuda_driver.h"

#include <dlfcn.h>

#include <gtest/gtest.h>

namespace torchscan::devices {
namespace {

TEST(FormatCudaVersion, MajorDotMinor) {
  EXPECT_EQ(FormatCudaVersion(13000), "13.0");
  EXPECT_EQ(FormatCudaVersion(12010), "12.1");
  EXPECT_EQ(FormatCudaVersion(9020), "9.2");
  EXPECT_EQ(FormatCudaVersion(0), "unknown");
  EXPECT_EQ(FormatCudaVersion(-1), "unknown");
}

// Where the driver's library is missing (this machine without a GPU driver) every fact is
// unknown and the report says why; where it is present the GPU's name and facts are read.
TEST(DescribeFromDriver, SaysWhyFactsAreUnknownOrReadsThem) {
  v1::Environment env;
  DescribeFromDriver(0, &env);
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  const bool has_driver = driver != nullptr || dlopen("libcuda.so.1", RTLD_NOW) != nullptr;
  ::testing::Test::RecordProperty("cuda_driver", has_driver ? "yes" : "no");
  if (!has_driver) {
    EXPECT_EQ(env.device_name(), "unknown");
    EXPECT_EQ(env.cuda_driver(), "unknown");
    EXPECT_EQ(env.gpu().compute_capability(), "unknown");
    EXPECT_EQ(env.gpu().persistence_mode(), "unknown");
    EXPECT_FALSE(env.gpu().has_memory_bytes());
    EXPECT_NE(env.gpu().unreadable().find("libcuda.so.1 cannot be loaded"), std::string::npos)
        << env.gpu().unreadable();
    return;
  }
  EXPECT_NE(env.cuda_driver(), "unknown") << env.gpu().unreadable();
}

// Without the driver's libraries nothing is read, and nothing is made up.
TEST(ReadDriverState, UnsetWhereTheDriverCannotBeAsked) {
  const DeviceState state = ReadDriverState(0);
  if (dlopen("libnvidia-ml.so.1", RTLD_NOW) != nullptr) return;  // a GPU machine: its values are its own
  EXPECT_FALSE(state.sm_clock_mhz.has_value());
  EXPECT_FALSE(state.throttle_reasons.has_value());
  EXPECT_FALSE(state.other_processes.has_value());
}

}  // namespace
}  // namespace torchscan::devices
