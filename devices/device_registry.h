// Opens a device by name: the registry of device types (cpu, cuda) and their implementations.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "devices/device.h"

namespace torchscan::devices {

// Parses `requested` (spec::ParseDeviceName: "" is the CPU) and opens it on this machine.
// kInvalidArgument "device '<requested>' cannot be used: <why>" when it cannot be: the
// parser's refusals, and a GPU this machine or this LibTorch cannot drive (no CUDA support
// library, no GPU visible, an index past the visible ones). Never throws. Opening cuda:N
// loads LibTorch's CUDA half first (cuda_support.h); CPU jobs never load it.
absl::StatusOr<std::unique_ptr<Device>> OpenDevice(absl::string_view requested);

// The device types OpenDevice opens, in registry order ("cpu", "cuda").
std::vector<std::string> DeviceTypes();

}  // namespace torchscan::devices
