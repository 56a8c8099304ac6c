#include "workloads/device.h"

#include <gtest/gtest.h>

#include <torch/cuda.h>

#include "libtorch_build_info.h"
#include "workloads/cuda_support.h"

namespace torchscan::workloads {
namespace {

bool Contains(const absl::Status& s, absl::string_view text) {
  return s.message().find(text) != absl::string_view::npos;
}

TEST(ResolveDevice, CpuIsTheDefault) {
  for (const char* name : {"", "cpu"}) {
    const auto d = ResolveDevice(name);
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_EQ(d->name, "cpu");
    EXPECT_FALSE(d->cuda);
  }
}

TEST(ResolveDevice, MpsIsRefusedNamingTheDevice) {
  const auto d = ResolveDevice("mps");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(d.status(), "'mps'"));
  EXPECT_TRUE(Contains(d.status(), "MPS"));
}

// Whether this process can drive CUDA device 0: a CUDA LibTorch and a visible GPU, asked of
// LibTorch itself (torch::cuda::is_available() is false on a CPU-only LibTorch).
// CUDA support is loaded first: LibTorch keeps the answer of its first CUDA query.
bool GpuVisible() { return TORCHSCAN_LIBTORCH_CUDA && LoadCudaSupport().ok() && torch::cuda::is_available(); }

// Each outcome of "cuda:0" is asserted where it applies; the one that cannot apply on this
// machine is reported as skipped, so a CPU-only run says it proved nothing about GPUs.
// One property, checked on every machine: cuda:0 resolves exactly where a GPU can be driven
// (a CUDA LibTorch that sees a device), and elsewhere is refused saying why. Which side ran is
// recorded in test.xml (gpu_visible), so a CPU machine's run says it did not prove the GPU side.
TEST(ResolveDevice, CudaZeroResolvesExactlyWhereAGpuCanBeDriven) {
  const bool gpu = GpuVisible();
  ::testing::Test::RecordProperty("gpu_visible", gpu ? "yes" : "no");
  const auto d = ResolveDevice("cuda:0");
  if (!gpu) {
    ASSERT_FALSE(d.ok()) << "cuda:0 resolved where no GPU can be driven";
    EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(Contains(d.status(), "'cuda:0'")) << d.status();
    // Why: a CPU-only LibTorch, or a CUDA one that sees no device.
    EXPECT_TRUE(Contains(d.status(), TORCHSCAN_LIBTORCH_CUDA ? "no CUDA device is visible" : "CPU-only")) << d.status();
    return;
  }
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->name, "cuda:0");
  EXPECT_TRUE(d->cuda);
  EXPECT_EQ(d->index, 0);
  const auto bare = ResolveDevice("cuda");  // = cuda:0
  ASSERT_TRUE(bare.ok()) << bare.status();
  EXPECT_EQ(bare->name, "cuda:0");
}

// No machine has 4097 GPUs: refused on every build, naming the device.
TEST(ResolveDevice, CudaBeyondTheVisibleDevicesIsRefusedNamingIt) {
  const auto d = ResolveDevice("cuda:4096");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(d.status(), "'cuda:4096'")) << d.status();
}

TEST(ResolveDevice, MalformedAndUnknownDevices) {
  for (const char* name : {"cuda:", "cuda:x", "cuda:-1", "cuda:1a", "tpu", "CPU"}) {
    const auto d = ResolveDevice(name);
    ASSERT_FALSE(d.ok()) << name;
    EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(Contains(d.status(), std::string("'") + name + "'")) << d.status();
  }
}

}  // namespace
}  // namespace torchscan::workloads
