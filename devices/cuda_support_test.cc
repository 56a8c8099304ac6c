#include "devices/cuda_support.h"

#include <gtest/gtest.h>

#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/cuda.h>

#include "libtorch_build_info.h"

namespace torchscan::devices {
namespace {

// One test: the order matters (before the load, then the load, then again), and a process can
// load CUDA support only once.
TEST(CudaSupport, ACpuProcessHasNoCudaUntilItLoadsIt) {
  if (!TORCHSCAN_LIBTORCH_CUDA) {
    ::testing::Test::RecordProperty("cuda_libtorch", "no");
    EXPECT_FALSE(LoadCudaSupport().ok());
    return;
  }
  EXPECT_FALSE(CudaSupportLoaded()) << "a CPU process mapped libtorch_cuda.so without asking";
  EXPECT_FALSE(at::CUDAHooksRegistry()->Has("CUDAHooks"));
  EXPECT_NE(CudaSupportLibrary().find("/libtorch_cuda.so"), std::string::npos) << CudaSupportLibrary();

  const absl::Status loaded = LoadCudaSupport();
  ASSERT_TRUE(loaded.ok()) << loaded;
  EXPECT_TRUE(CudaSupportLoaded());
  EXPECT_TRUE(at::CUDAHooksRegistry()->Has("CUDAHooks"));
  EXPECT_TRUE(LoadCudaSupport().ok()) << "a second load is a no-op";
  // Asking LibTorch now reaches the real hooks: without a GPU it says so, and does not throw.
  ::testing::Test::RecordProperty("gpu_visible", torch::cuda::is_available() ? "yes" : "no");
}

}  // namespace
}  // namespace torchscan::devices
