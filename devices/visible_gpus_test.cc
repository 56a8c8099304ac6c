#include "devices/visible_gpus.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace torchscan::devices {
namespace {

// A driver folder with `gpus` GPUs, as /proc/driver/nvidia/gpus lists them (by PCI bus id).
std::string DriverFolder(int gpus) {
  const std::filesystem::path root = std::filesystem::path(::testing::TempDir()) / ("gpus" + std::to_string(gpus));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  for (int i = 0; i < gpus; ++i) std::filesystem::create_directories(root / ("0000:0" + std::to_string(i) + ":00.0"));
  return root.string();
}

TEST(VisibleGpus, NoDriverNoGpus) {
  EXPECT_EQ(VisibleGpus("/nonexistent/driver/gpus", "/nonexistent/dev", std::nullopt), 0);
  EXPECT_EQ(VisibleGpus("/nonexistent/driver/gpus", "/nonexistent/dev", "0,1"), 0);
}

TEST(VisibleGpus, EveryDriverGpuWithoutCudaVisibleDevices) {
  EXPECT_EQ(VisibleGpus(DriverFolder(2), "/nonexistent/dev", std::nullopt), 2);
  EXPECT_EQ(VisibleGpus(DriverFolder(0), "/nonexistent/dev", std::nullopt), 0);
}

// As the CUDA runtime reads the variable: entries up to the first invalid one.
TEST(VisibleGpus, CudaVisibleDevicesNarrowsThem) {
  const std::string four = DriverFolder(4);
  EXPECT_EQ(VisibleGpus(four, "/nonexistent/dev", "2"), 1);
  EXPECT_EQ(VisibleGpus(four, "/nonexistent/dev", "3,1"), 2);
  EXPECT_EQ(VisibleGpus(four, "/nonexistent/dev", ""), 0);
  EXPECT_EQ(VisibleGpus(four, "/nonexistent/dev", "-1"), 0);
  EXPECT_EQ(VisibleGpus(four, "/nonexistent/dev", "0,7,1"), 1);  // 7 does not exist: CUDA stops there
  EXPECT_EQ(VisibleGpus(four, "/nonexistent/dev", "GPU-8f6c2a1e-0000-0000-0000-000000000000,1"), 2);
  EXPECT_EQ(VisibleGpus(DriverFolder(1), "/nonexistent/dev", "0,1,2"), 1);
}

}  // namespace
}  // namespace torchscan::devices
