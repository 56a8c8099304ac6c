// CUDA devices (cuda:N) over a GpuRuntime (gpu_runtime.h): synchronise device N (not the
// current device), time blocks with events on its stream, read its caching allocator's peaks,
// describe it. All of TorchScan's CUDA logic; what it calls LibTorch for is the runtime's.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "devices/device.h"
#include "devices/gpu_runtime.h"
#include "spec/device_name.h"

namespace torchscan::devices {

// Opens `name` (a CUDA name) on `runtime`, in a process its daemon pinned to the GPUs
// `pinned` (gpu_pin.h's kPinnedGpusVariable; nullopt: not pinned), where cuda:N is the
// runtime's ordinal LocalGpuIndex gives. kInvalidArgument "device '<name>' cannot be used:
// <why>" when N is not among the pinned GPUs, the runtime cannot load, sees no GPU, or too few.
absl::StatusOr<std::unique_ptr<Device>> OpenCudaDevice(const spec::DeviceName& name,
                                                       std::shared_ptr<GpuRuntime> runtime,
                                                       const std::optional<std::string>& pinned = std::nullopt);

}  // namespace torchscan::devices
