// The LibTorch-facing part of environment capture (core/environment.h holds the rest).
// Only the .cc includes LibTorch; this header needs the schema alone.
#pragma once

#include <string>

#include "devices/device.h"
#include "proto/report.pb.h"

namespace torchscan::experiment {

// Fills the LibTorch fields of `env` for a run on `device`:
//   libtorch_version, libtorch_path, libtorch_cuda  the LibTorch this build was compiled
//                                                    against (libtorch_build_info.h)
//   libtorch_config  at::show_config()
//   blas_library     resolved path of the BLAS library mapped in this process (see
//                    FindBlasLibrary in core/environment.h); when none is mapped yet, one
//                    tiny torch::mm is run to load it; if still none (PyPI's LibTorch links
//                    MKL statically), the BLAS at::show_config() names (BuiltInBlas)
//   device_name, cuda_runtime, cuda_driver, gpu  the device's own (devices::Device::Describe):
//                    on the CPU its model (env->cpu_model(), or /proc/cpuinfo when empty) and
//                    "none"; on a GPU its name, versions and facts
// Leaves the other fields alone; call it after CaptureEnvironment(). Never throws.
void AddTorchEnvironment(v1::Environment* env, devices::Device& device);

}  // namespace torchscan::experiment
