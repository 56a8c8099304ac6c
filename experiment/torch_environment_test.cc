#include "experiment/torch_environment.h"

#include <stdlib.h>

#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <torch/version.h>

#include "core/environment.h"
#include "devices/device_registry.h"
#include "io/file_io.h"
#include "libtorch_build_info.h"

namespace torchscan::experiment {
namespace {

std::unique_ptr<devices::Device> Cpu() {
  absl::StatusOr<std::unique_ptr<devices::Device>> cpu = devices::OpenDevice("cpu");
  EXPECT_TRUE(cpu.ok()) << cpu.status();
  return *std::move(cpu);
}

v1::Environment TorchEnvironment() {
  v1::Environment env = CaptureEnvironment();
  AddTorchEnvironment(&env, *Cpu());
  return env;
}

TEST(AddTorchEnvironment, VersionIsTheCompiledAgainstLibTorch) {
  const v1::Environment env = TorchEnvironment();
  EXPECT_FALSE(env.libtorch_version().empty());
  EXPECT_EQ(env.libtorch_version(), TORCH_VERSION);
  EXPECT_EQ(env.libtorch_path(), TORCHSCAN_LIBTORCH_PATH);
  EXPECT_EQ(env.libtorch_cuda(), TORCHSCAN_LIBTORCH_CUDA != 0);
  EXPECT_NE(env.libtorch_config().find("PyTorch built with"), std::string::npos) << env.libtorch_config();
}

// A LibTorch that maps a BLAS file names its resolved path; PyPI's (MKL linked into
// libtorch_cpu.so, the project environment's) names MKL and its version from show_config.
TEST(AddTorchEnvironment, BlasLibraryIsTheResolvedLoadedFileOrTheLinkedOne) {
  const std::string blas = TorchEnvironment().blas_library();
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

// A CPU job loads no CUDA: its CUDA versions are "none" on every LibTorch, and it has no GPU
// facts (a GPU job's are devices/cuda_driver.h's, tested there).
TEST(AddTorchEnvironment, ACpuJobHasNoCudaVersionsOrGpuFacts) {
  const v1::Environment env = TorchEnvironment();
  EXPECT_EQ(env.libtorch_cuda(), TORCHSCAN_LIBTORCH_CUDA != 0);
  EXPECT_EQ(env.cuda_runtime(), "none");
  EXPECT_EQ(env.cuda_driver(), "none");
  EXPECT_FALSE(env.has_gpu());
}

TEST(AddTorchEnvironment, CpuDeviceNameIsTheCpuModel) {
  v1::Environment env;
  env.set_cpu_model("Test CPU 9000");
  AddTorchEnvironment(&env, *Cpu());
  EXPECT_EQ(env.device_name(), "Test CPU 9000");

  v1::Environment empty;
  AddTorchEnvironment(&empty, *Cpu());
  EXPECT_EQ(empty.device_name(), ParseCpuInfo(*ReadFile("/proc/cpuinfo")).model);
}

TEST(AddTorchEnvironment, LeavesOtherFieldsAlone) {
  v1::Environment env;
  env.set_hostname("bench-01");
  env.set_logical_cores(7);
  AddTorchEnvironment(&env, *Cpu());
  EXPECT_EQ(env.hostname(), "bench-01");
  EXPECT_EQ(env.logical_cores(), 7);
  EXPECT_TRUE(env.os().empty());
}

}  // namespace
}  // namespace torchscan::experiment
