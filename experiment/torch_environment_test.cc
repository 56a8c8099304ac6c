#include "experiment/torch_environment.h"

#include <stdlib.h>

#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <torch/version.h>

#include "core/environment.h"
#include "io/file_io.h"
#include "libtorch_build_info.h"

namespace torchscan::experiment {
namespace {

v1::Environment TorchEnvironment(const std::string& device) {
  v1::Environment env = CaptureEnvironment();
  AddTorchEnvironment(&env, device);
  return env;
}

TEST(AddTorchEnvironment, VersionIsTheCompiledAgainstLibTorch) {
  const v1::Environment env = TorchEnvironment("cpu");
  EXPECT_FALSE(env.libtorch_version().empty());
  EXPECT_EQ(env.libtorch_version(), TORCH_VERSION);
  EXPECT_EQ(env.libtorch_path(), TORCHSCAN_LIBTORCH_PATH);
  EXPECT_EQ(env.libtorch_cuda(), TORCHSCAN_LIBTORCH_CUDA != 0);
  EXPECT_NE(env.libtorch_config().find("PyTorch built with"), std::string::npos) << env.libtorch_config();
}

// A LibTorch that maps a BLAS file names its resolved path; PyPI's (MKL linked into
// libtorch_cpu.so, the project environment's) names MKL and its version from show_config.
TEST(AddTorchEnvironment, BlasLibraryIsTheResolvedLoadedFileOrTheLinkedOne) {
  const std::string blas = TorchEnvironment("cpu").blas_library();
  ASSERT_FALSE(blas.empty());
  ASSERT_NE(blas, "unknown");
  if (blas.front() != '/') {
    EXPECT_EQ(blas.rfind("MKL 20", 0), 0u) << blas;
    EXPECT_NE(blas.find("linked into LibTorch"), std::string::npos) << blas;
    return;
  }
  EXPECT_EQ(blas.front(), '/') << blas;
  EXPECT_NE(blas.substr(blas.rfind('/')).find("blas"), std::string::npos) << blas;
  const std::unique_ptr<char, decltype(&free)> resolved(realpath(blas.c_str(), nullptr), &free);
  ASSERT_NE(resolved, nullptr) << blas;
  EXPECT_EQ(blas, resolved.get());
}

// "none" on a CPU-only LibTorch; on a CUDA one (the project environment's) a "major.minor"
// version, or "unknown" where it cannot be read (no CUDA toolkit headers at build time).
TEST(AddTorchEnvironment, CudaFieldsAreNoneOnCpuBuildElseAVersionOrUnknown) {
  const v1::Environment env = TorchEnvironment("cpu");
  EXPECT_EQ(env.libtorch_cuda(), TORCHSCAN_LIBTORCH_CUDA != 0);
  for (const std::string& v : {env.cuda_runtime(), env.cuda_driver()}) {
    if (!TORCHSCAN_LIBTORCH_CUDA) {
      EXPECT_EQ(v, "none");
    } else if (v != "unknown") {
      EXPECT_NE(v.find('.'), std::string::npos) << v;
    }
  }
}

// No GPU is visible to this process (none on this machine kind, and CUDA support is not loaded
// by the environment capture): the GPU's name is unknown, never a made-up one.
TEST(AddTorchEnvironment, CudaDeviceNameIsUnknownWithoutAVisibleGpu) {
  EXPECT_EQ(TorchEnvironment("cuda:0").device_name(), "unknown");
}

TEST(AddTorchEnvironment, CpuDeviceNameIsTheCpuModel) {
  v1::Environment env;
  env.set_cpu_model("Test CPU 9000");
  AddTorchEnvironment(&env, "cpu");
  EXPECT_EQ(env.device_name(), "Test CPU 9000");

  v1::Environment empty;
  AddTorchEnvironment(&empty, "cpu");
  EXPECT_EQ(empty.device_name(), ParseCpuInfo(*ReadFile("/proc/cpuinfo")).model);
}

TEST(AddTorchEnvironment, MalformedOrOtherDeviceIsUnknown) {
  EXPECT_EQ(TorchEnvironment("not a device").device_name(), "unknown");
  EXPECT_EQ(TorchEnvironment("").device_name(), "unknown");
  EXPECT_EQ(TorchEnvironment("meta").device_name(), "unknown");
}

TEST(AddTorchEnvironment, LeavesOtherFieldsAlone) {
  v1::Environment env;
  env.set_hostname("bench-01");
  env.set_logical_cores(7);
  AddTorchEnvironment(&env, "cpu");
  EXPECT_EQ(env.hostname(), "bench-01");
  EXPECT_EQ(env.logical_cores(), 7);
  EXPECT_TRUE(env.os().empty());
}

TEST(FormatCudaVersion, MajorDotMinor) {
  EXPECT_EQ(FormatCudaVersion(12010), "12.1");
  EXPECT_EQ(FormatCudaVersion(11080), "11.8");
  EXPECT_EQ(FormatCudaVersion(9020), "9.2");
  EXPECT_EQ(FormatCudaVersion(0), "unknown");
  EXPECT_EQ(FormatCudaVersion(-1), "unknown");
}

}  // namespace
}  // namespace torchscan::experiment
