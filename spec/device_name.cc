#include "spec/device_name.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace torchscan::spec {

absl::StatusOr<DeviceName> ParseDeviceName(absl::string_view text) {
  if (text.empty() || text == "cpu") return DeviceName{false, -1, "cpu"};
  const auto refused = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("device '", text, "' cannot be used: ", why));
  };
  if (text == "mps" || absl::StartsWith(text, "mps:"))
    return refused("MPS (Apple GPUs) is not available in LibTorch builds for this platform; use device 'cpu'");
  if (text == "cuda") return DeviceName{true, 0, "cuda:0"};
  absl::string_view digits = text;
  if (absl::ConsumePrefix(&digits, "cuda:")) {
    int index = -1;
    const bool all_digits = !digits.empty() && std::all_of(digits.begin(), digits.end(), absl::ascii_isdigit);
    if (!all_digits || digits.size() > 4 || !absl::SimpleAtoi(digits, &index))
      return refused(absl::StrCat("write a CUDA device as 'cuda:N' with N a device index from 0 to ", kMaxDeviceIndex));
    return DeviceName{true, index, absl::StrCat("cuda:", index)};
  }
  return refused("unknown device type; use 'cpu' or 'cuda:N'");
}

std::string PassUnsupportedOn(const DeviceName& device, absl::string_view pass) {
  if (!device.cuda) return "";
  if (pass == "rss")
    return absl::StrCat("peak RSS measures the host process, for CPU jobs only: on ", device.text,
                        " it would count the CUDA runtime's host memory, not the model's (tensor memory on the "
                        "device is in every report)");
  if (pass == "instructions")
    return absl::StrCat("instruction counts measure the host's instructions, for CPU jobs only: on ", device.text,
                        " the model's work runs on the GPU, out of callgrind's sight");
  return "";
}

}  // namespace torchscan::spec
