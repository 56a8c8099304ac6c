#include "devices/device_registry.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <ATen/ops/ones.h>
#include <torch/cuda.h>

#include "devices/cuda_support.h"
#include "libtorch_build_info.h"

namespace torchscan::devices {
namespace {

bool Contains(const absl::Status& s, absl::string_view text) {
  return s.message().find(text) != absl::string_view::npos;
}

TEST(OpenDevice, CpuIsTheDefault) {
  for (const char* name : {"", "cpu"}) {
    const auto d = OpenDevice(name);
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_EQ((*d)->text(), "cpu");
    EXPECT_FALSE((*d)->is_cuda());
  }
}

TEST(OpenDevice, MpsIsRefusedNamingTheDevice) {
  const auto d = OpenDevice("mps");
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
TEST(OpenDevice, CudaZeroResolvesExactlyWhereAGpuCanBeDriven) {
  const bool gpu = GpuVisible();
  ::testing::Test::RecordProperty("gpu_visible", gpu ? "yes" : "no");
  const auto d = OpenDevice("cuda:0");
  if (!gpu) {
    ASSERT_FALSE(d.ok()) << "cuda:0 resolved where no GPU can be driven";
    EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(Contains(d.status(), "'cuda:0'")) << d.status();
    // Why: a CPU-only LibTorch, or a CUDA one that sees no device.
    EXPECT_TRUE(
        Contains(d.status(), TORCHSCAN_LIBTORCH_CUDA ? "no CUDA device is visible" : "CUDA support: cannot load"))
        << d.status();
    return;
  }
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ((*d)->text(), "cuda:0");
  EXPECT_TRUE((*d)->is_cuda());
  EXPECT_EQ((*d)->name().index, 0);
  const auto bare = OpenDevice("cuda");  // = cuda:0
  ASSERT_TRUE(bare.ok()) << bare.status();
  EXPECT_EQ((*bare)->text(), "cuda:0");
}

// No machine has 4097 GPUs: refused on every build, naming the device.
TEST(OpenDevice, CudaBeyondTheVisibleDevicesIsRefusedNamingIt) {
  const auto d = OpenDevice("cuda:4096");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(d.status(), "'cuda:4096'")) << d.status();
}

TEST(OpenDevice, MalformedAndUnknownDevices) {
  for (const char* name : {"cuda:", "cuda:x", "cuda:-1", "cuda:1a", "tpu", "CPU"}) {
    const auto d = OpenDevice(name);
    ASSERT_FALSE(d.ok()) << name;
    EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(Contains(d.status(), std::string("'") + name + "'")) << d.status();
  }
}

TEST(OpenDevice, TheRegistryListsEachDeviceType) {
  EXPECT_EQ(DeviceTypes(), (std::vector<std::string>{"cpu", "cuda"}));
}

// The CPU: the host clock with nothing to wait for, "none" in the report's settings, its model
// as the device name, and no CUDA versions (a CPU job loads no CUDA).
TEST(CpuDevice, TimesWithTheHostClockAndDescribesTheCpu) {
  const auto d = OpenDevice("cpu");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ((*d)->NewBlockTimer(SteadyClock())->Describe(), "none");
  v1::Environment env;
  env.set_cpu_model("Example CPU @ 2.0GHz");
  (*d)->Describe(&env);
  EXPECT_EQ(env.device_name(), "Example CPU @ 2.0GHz");
  EXPECT_EQ(env.cuda_runtime(), "none");
  EXPECT_EQ(env.cuda_driver(), "none");
  EXPECT_FALSE(env.has_gpu());
}

TEST(CpuDevice, ThePeakOfACallCountsItsTensors) {
  const auto d = OpenDevice("cpu");
  ASSERT_TRUE(d.ok()) << d.status();
  const MemoryPeaks peaks = (*d)->PeakOfCall([] {
    at::Tensor a = at::ones({1024}, at::kFloat);  // 4 KiB
    at::Tensor b = at::ones({2048}, at::kFloat);  // 8 KiB, both alive
  });
  EXPECT_EQ(peaks.allocated_bytes, 12 * 1024);
  EXPECT_FALSE(peaks.reserved_bytes.has_value());
}

}  // namespace
}  // namespace torchscan::devices
