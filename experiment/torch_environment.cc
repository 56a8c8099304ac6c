#include "experiment/torch_environment.h"

#include <stdlib.h>

#include <exception>
#include <memory>

#include <ATen/Version.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/ones.h>

#include "core/environment.h"
#include "io/file_io.h"
#include "libtorch_build_info.h"

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

}  // namespace

void AddTorchEnvironment(v1::Environment* env, devices::Device& device) {
  env->set_libtorch_version(TORCHSCAN_LIBTORCH_VERSION);
  env->set_libtorch_path(TORCHSCAN_LIBTORCH_PATH);
  env->set_libtorch_cuda(TORCHSCAN_LIBTORCH_CUDA != 0);
  env->set_libtorch_config(OrUnknownOnError([] { return at::show_config(); }));
  env->set_blas_library(OrUnknownOnError(LoadedBlasLibrary));
  device.Describe(env);
}

}  // namespace torchscan::experiment
