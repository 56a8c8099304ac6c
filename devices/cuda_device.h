// CUDA devices (cuda:N) over a GpuRuntime (gpu_runtime.h): synchronise device N (not the
// current device), time blocks with events on its stream, read its caching allocator's peaks,
// describe it. All of TorchScan's CUDA logic; what it calls LibTorch for is the runtime's.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "devices/device.h"
#include "devices/gpu_runtime.h"
#include "spec/device_name.h"

namespace torchscan::devices {

// Opens `name` (a CUDA name) on `runtime`: kInvalidArgument "device '<name>' cannot be used:
// <why>" when the runtime cannot load, sees no GPU, or fewer than N + 1.
absl::StatusOr<std::unique_ptr<Device>> OpenCudaDevice(const spec::DeviceName& name,
                                                       std::shared_ptr<GpuRuntime> runtime);

}  // namespace torchscan::devices
