// A compiled AOTInductor model (the .so inside a .pt2) NEEDs libtorch.so as well as
// libtorch_cpu.so. The wheel's libtorch.so defines nothing of torch's own (only inline
// libstdc++ symbols) but NEEDs libtorch_cuda.so, which TorchScan keeps out of CPU jobs
// (devices/cuda_support.h: 0.17 s of start-up and 350 MB of RSS, which would also land in a
// package's peak RSS and not in its TorchScript twin's). So before a package is loaded on the
// CPU, this process maps an empty library whose SONAME is libtorch.so (built with the worker,
// carried inside it); the dynamic loader then takes the package's NEEDED entry as met. On a
// CUDA device, where libtorch_cuda.so is loaded anyway, the real libtorch.so is loaded.
#pragma once

#include <c10/core/Device.h>

#include "absl/status/status.h"

namespace torchscan::workloads {

// Makes a library with SONAME libtorch.so present in this process (RTLD_GLOBAL), as above;
// nothing when one is. Idempotent and thread-safe. FailedPrecondition naming the file and
// dlerror() when it cannot be loaded or written.
absl::Status ProvideLibtorchSoname(const c10::Device& device);

}  // namespace torchscan::workloads
