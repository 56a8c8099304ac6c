#include "workloads/device.h"

#include <cstdint>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "libtorch_build_info.h"
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
  if (requested.empty() || requested == "cpu") return ResolvedDevice{"cpu", false, -1};
  if (requested == "mps" || absl::StartsWith(requested, "mps:")) {
    return Unsupported(requested,
                       "MPS (Apple GPUs) is not available in LibTorch builds for this platform; "
                       "use device 'cpu'");
  }
  if (requested == "cuda" || absl::StartsWith(requested, "cuda:")) {
    int index = 0;
    if (requested != "cuda") {
      const std::string digits = requested.substr(5);
      if (digits.empty() || !absl::SimpleAtoi(digits, &index) || index < 0 ||
          digits.find_first_not_of("0123456789") != std::string::npos) {
        return Unsupported(requested, "write a CUDA device as 'cuda:N' with N a device index >= 0");
      }
    }
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
  return Unsupported(requested, "unknown device type; this build drives 'cpu'" +
                                    std::string(TORCHSCAN_LIBTORCH_CUDA ? " and 'cuda:N'" : ""));
}

}  // namespace torchscan::workloads
