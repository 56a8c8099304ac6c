#include "workloads/libtorch_soname.h"

#include <dlfcn.h>

#include <memory>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "devices/cuda_support.h"
#include "workloads/private_file.h"

namespace torchscan::workloads {
namespace {

// The bytes of //workloads:libtorch_soname_shim.so (an empty shared library, SONAME
// libtorch.so), written out by the genrule beside it.
constexpr unsigned char kShim[] = {
#include "workloads/libtorch_soname_shim_bytes.inc"
};

absl::Status Open(const std::string& path, const std::string& what) {
  if (::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr) return absl::OkStatus();
  const char* error = ::dlerror();
  return absl::FailedPreconditionError(
      absl::StrCat("loading ", what, " (", path, ") for the package: ", error != nullptr ? error : "dlopen failed"));
}

absl::Status Provide(const c10::Device& device) {
  if (::dlopen("libtorch.so", RTLD_NOW | RTLD_NOLOAD) != nullptr) return absl::OkStatus();
  if (device.is_cuda()) {
    std::string cuda = devices::CudaSupportLibrary();  // <folder>/libtorch_cuda.so
    if (cuda.empty()) return absl::FailedPreconditionError("cannot find the folder of LibTorch's libtorch.so");
    return Open(cuda.substr(0, cuda.size() - std::string("libtorch_cuda.so").size()) + "libtorch.so", "libtorch.so");
  }
  absl::StatusOr<std::unique_ptr<PrivateFile>> file =
      PrivateFile::Write(absl::string_view(reinterpret_cast<const char*>(kShim), sizeof(kShim)), ".so");
  if (!file.ok()) return file.status();
  return Open((*file)->path(), "an empty library named libtorch.so");  // mapped: the file may go
}

}  // namespace

absl::Status ProvideLibtorchSoname(const c10::Device& device) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  return Provide(device);
}

}  // namespace torchscan::workloads
