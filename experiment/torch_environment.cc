#include "experiment/torch_environment.h"

#include <stdlib.h>

#include <exception>
#include <memory>

#include <ATen/Version.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/ones.h>
#include <c10/core/Device.h>

#include "core/environment.h"
#include "io/file_io.h"
#include "libtorch_build_info.h"

#if TORCHSCAN_LIBTORCH_CUDA
#include <torch/cuda.h>
// The CUDA runtime headers exist only when the build found a CUDA toolkit (CUDA_HOME).
#if __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#define TORCHSCAN_HAVE_CUDA_RUNTIME 1
#endif
#endif
#ifndef TORCHSCAN_HAVE_CUDA_RUNTIME
#define TORCHSCAN_HAVE_CUDA_RUNTIME 0
#endif

namespace torchscan::experiment {
namespace {

// Runs `read`; any exception (LibTorch throws c10::Error) gives kUnknown instead.
template <typename Read>
std::string OrUnknownOnError(Read read) {
  try {
    return read();
  } catch (const std::exception&) {
    return kUnknown;
  }
}

// ---------------------------------------------------------------- BLAS

std::string MappedBlasLibrary() { return FindBlasLibrary(ReadFile("/proc/self/maps").value_or("")); }

// One matrix product on the CPU, so that a BLAS LibTorch loads lazily gets mapped.
void RunTinyMatmul() { at::mm(at::ones({2, 2}), at::ones({2, 2})); }

// `path` with every symbolic link resolved; `path` itself when that fails (the kernel
// already writes resolved paths into /proc/self/maps, so it is still the loaded file).
std::string ResolvedPath(const std::string& path) {
  const std::unique_ptr<char, decltype(&free)> resolved(realpath(path.c_str(), nullptr), &free);
  return resolved ? std::string(resolved.get()) : path;
}

std::string LoadedBlasLibrary() {
  std::string path = MappedBlasLibrary();
  if (path == kUnknown) {
    RunTinyMatmul();
    path = MappedBlasLibrary();
  }
  // PyPI's LibTorch maps no BLAS file: MKL is linked into libtorch_cpu.so.
  return path == kUnknown ? BuiltInBlas(at::show_config()) : ResolvedPath(path);
}

// ---------------------------------------------------------------- CUDA

#if TORCHSCAN_HAVE_CUDA_RUNTIME
std::string CudaVersion(cudaError_t (*get_version)(int*)) {
  int version = 0;
  return get_version(&version) == cudaSuccess ? FormatCudaVersion(version) : kUnknown;
}
#endif

void FillCudaVersions(v1::Environment* env) {
#if !TORCHSCAN_LIBTORCH_CUDA
  env->set_cuda_runtime("none");
  env->set_cuda_driver("none");
#elif TORCHSCAN_HAVE_CUDA_RUNTIME
  env->set_cuda_runtime(CudaVersion(&cudaRuntimeGetVersion));
  env->set_cuda_driver(CudaVersion(&cudaDriverGetVersion));
#else
  env->set_cuda_runtime(kUnknown);
  env->set_cuda_driver(kUnknown);
#endif
}

// The name of CUDA device `index` (-1: the current device); kUnknown when this build
// cannot ask or the device does not exist.
std::string CudaDeviceName(c10::DeviceIndex index) {
#if TORCHSCAN_HAVE_CUDA_RUNTIME
  int device = index;
  if (device < 0 && cudaGetDevice(&device) != cudaSuccess) return kUnknown;
  if (device >= static_cast<int>(torch::cuda::device_count())) return kUnknown;
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, device) != cudaSuccess) return kUnknown;
  return properties.name[0] != '\0' ? std::string(properties.name) : std::string(kUnknown);
#else
  (void)index;
  return kUnknown;
#endif
}

// ---------------------------------------------------------------- device

std::string CpuDeviceName(const v1::Environment& env) {
  if (!env.cpu_model().empty()) return env.cpu_model();
  return ParseCpuInfo(ReadFile("/proc/cpuinfo").value_or("")).model;
}

// Throws c10::Error when `device` is not a device string.
std::string DeviceName(const v1::Environment& env, const std::string& device) {
  const c10::Device parsed(device);
  if (parsed.is_cpu()) return CpuDeviceName(env);
  if (parsed.is_cuda()) return CudaDeviceName(parsed.index());
  return kUnknown;
}

}  // namespace

void AddTorchEnvironment(v1::Environment* env, const std::string& device) {
  env->set_libtorch_version(TORCHSCAN_LIBTORCH_VERSION);
  env->set_libtorch_path(TORCHSCAN_LIBTORCH_PATH);
  env->set_libtorch_cuda(TORCHSCAN_LIBTORCH_CUDA != 0);
  env->set_libtorch_config(OrUnknownOnError([] { return at::show_config(); }));
  env->set_blas_library(OrUnknownOnError(LoadedBlasLibrary));
  FillCudaVersions(env);
  env->set_device_name(OrUnknownOnError([&] { return DeviceName(*env, device); }));
}

std::string FormatCudaVersion(int version) {
  if (version <= 0) return kUnknown;
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

}  // namespace torchscan::experiment
