#include "devices/cuda_support.h"

#include <dlfcn.h>

#include <fstream>
#include <mutex>
#include <typeinfo>

#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/core/CPUAllocator.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace torchscan::devices {

std::string CudaSupportLibrary() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&c10::GetCPUAllocator), &info) == 0 || info.dli_fname == nullptr) return "";
  const std::string c10(info.dli_fname);
  const size_t slash = c10.rfind('/');
  return slash == std::string::npos ? "libtorch_cuda.so" : c10.substr(0, slash + 1) + "libtorch_cuda.so";
}

bool CudaSupportLoaded() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (absl::EndsWith(line, "/libtorch_cuda.so")) return true;
  }
  return false;
}

absl::Status LoadCudaSupport() {
  static std::mutex mu;
  static bool loaded = false;
  std::lock_guard<std::mutex> lock(mu);
  if (loaded) return absl::OkStatus();
  const std::string library = CudaSupportLibrary();
  if (library.empty())
    return absl::FailedPreconditionError(
        "CUDA support: cannot find the folder of libc10.so to load libtorch_cuda.so from");
  if (dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    const char* why = dlerror();
    return absl::FailedPreconditionError(
        absl::StrCat("CUDA support: cannot load ", library, " (", why == nullptr ? "unknown error" : why,
                     "); a CUDA device needs a CUDA build of LibTorch with its nvidia-* packages "
                     "(scripts/setup.sh installs them); use device 'cpu'"));
  }
  if (!at::CUDAHooksRegistry()->Has("CUDAHooks"))
    return absl::FailedPreconditionError(
        absl::StrCat("CUDA support: ", library, " loaded but registered no CUDA hooks"));
  // LibTorch keeps the hooks of its first CUDA query: the stub, if that came before this load.
  if (typeid(at::detail::getCUDAHooks()) == typeid(at::CUDAHooksInterface))
    return absl::FailedPreconditionError(
        "CUDA support: LibTorch was asked about CUDA before libtorch_cuda.so was loaded, and keeps that answer "
        "(a TorchScan bug: LoadCudaSupport must run first)");
  loaded = true;
  return absl::OkStatus();
}

}  // namespace torchscan::devices
