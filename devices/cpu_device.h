// The CPU device: no synchronisation (a call returns when its work is done), the host clock
// for blocks, and tensor peaks seen by LibTorch's memory reporting on the calling thread.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "devices/device.h"
#include "spec/device_name.h"

namespace torchscan::devices {

// Never fails for a CPU name.
absl::StatusOr<std::unique_ptr<Device>> OpenCpuDevice(const spec::DeviceName& name);

}  // namespace torchscan::devices
