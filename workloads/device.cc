#include "workloads/device.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "libtorch_build_info.h"
#include "spec/device_name.h"
#include "workloads/cuda_support.h"

#if TORCHSCAN_LIBTORCH_CUDA
#include <torch/cuda.h>
#endif

namespace torchscan::workloads {
namespace {

absl::Status Unsupported(const std::string& requested, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("device '", requested, "' cannot be used: ", why));
}

}  // namespace

absl::StatusOr<ResolvedDevice> ResolveDevice(const std::string& requested) {
  absl::StatusOr<spec::DeviceName> parsed = spec::ParseDeviceName(requested);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->cuda) return ResolvedDevice{"cpu", false, -1};
  const int index = parsed->index;
#if TORCHSCAN_LIBTORCH_CUDA
  if (absl::Status loaded = LoadCudaSupport(); !loaded.ok()) return Unsupported(requested, loaded.message());
  if (!torch::cuda::is_available()) {
    return Unsupported(requested,
                       "this LibTorch has CUDA but no CUDA device is visible (driver, "
                       "CUDA_VISIBLE_DEVICES?); use device 'cpu'");
  }
  const int64_t count = static_cast<int64_t>(torch::cuda::device_count());
  if (index >= count) {
    return Unsupported(requested, absl::StrCat("only ", count, " CUDA device(s) are visible (cuda:0",
                                               count > 1 ? absl::StrCat("..cuda:", count - 1) : "", ")"));
  }
  return ResolvedDevice{absl::StrCat("cuda:", index), true, index};
#else
  return Unsupported(requested,
                     "this TorchScan is built against a CPU-only LibTorch "
                     "(TORCHSCAN_LIBTORCH_CUDA=0); use device 'cpu', or rebuild with "
                     "TORCHSCAN_LIBTORCH pointing at a CUDA LibTorch on a GPU machine");
#endif
}

}  // namespace torchscan::workloads
