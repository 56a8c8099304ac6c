// The GpuRuntime (gpu_runtime.h) of CUDA devices through LibTorch's device-generic API
// (at::accelerator, c10::Event), which libtorch_cpu and libc10 hold: the CUDA half it
// dispatches to is loaded at run time (cuda_support.h), so this compiles and links on every
// machine and drives a GPU wherever one is visible. Device facts come from the driver
// (cuda_driver.h).
#pragma once

#include <memory>

#include "devices/gpu_runtime.h"

namespace torchscan::devices {

// Shared, stateless apart from LibTorch's own process-wide state.
std::shared_ptr<GpuRuntime> LibTorchCudaRuntime();

}  // namespace torchscan::devices
