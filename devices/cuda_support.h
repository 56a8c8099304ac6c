// LibTorch's CUDA half, loaded only by a process that runs a job on a CUDA device.
//
// TorchScan links libtorch_cpu and libc10 only: linked, libtorch_cuda.so and the CUDA libraries
// it needs cost every CPU job about 0.17 s of start-up and 350 MB of resident memory (README,
// "CPU jobs do not pay for CUDA"). A job on cuda:N calls LoadCudaSupport() before anything asks
// LibTorch about CUDA: LibTorch looks its CUDA hooks up once per process, so a query made before
// the load sees no CUDA for good. OpenDevice (devices/device.h) does this for every "cuda"
// device, so callers that resolve their device first need nothing else.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace torchscan::devices {

// dlopens libtorch_cuda.so from the folder of the libc10.so this process runs with (RTLD_GLOBAL:
// its kernels and CUDA hooks register themselves). Idempotent and thread-safe. kFailedPrecondition
// naming the file and dlerror() when it cannot be loaded (a CPU-only LibTorch, missing nvidia-*
// packages); kFailedPrecondition as well when LibTorch answered a CUDA query before the load.
absl::Status LoadCudaSupport();

// Whether libtorch_cuda.so is mapped into this process (by LoadCudaSupport or by linking).
bool CudaSupportLoaded();

// The file LoadCudaSupport loads: <folder of libc10.so>/libtorch_cuda.so ("" when not found).
std::string CudaSupportLibrary();

}  // namespace torchscan::devices
