// The LibTorch-facing part of environment capture (core/environment.h holds the rest).
// Only the .cc includes LibTorch; this header needs the schema alone.
#pragma once

#include <string>

#include "proto/report.pb.h"

namespace torchscan::experiment {

// Fills the LibTorch fields of `env` for a run on `device` ("cpu", "cuda", "cuda:1"):
//   libtorch_version, libtorch_path, libtorch_cuda  the LibTorch this build was compiled
//                                                    against (libtorch_build_info.h)
//   libtorch_config  at::show_config()
//   blas_library     resolved path of the BLAS library mapped in this process (see
//                    FindBlasLibrary in core/environment.h); when none is mapped yet, one
//                    tiny torch::mm is run to load it; if still none (PyPI's LibTorch links
//                    MKL statically), the BLAS at::show_config() names (BuiltInBlas)
//   cuda_runtime, cuda_driver  "none" when this build has no CUDA; else the versions as
//                    "major.minor", kUnknown when they cannot be read
//   device_name      for "cpu": env->cpu_model() (read from /proc/cpuinfo when empty);
//                    for CUDA devices: the GPU's name; kUnknown when the device string is
//                    malformed, names an unavailable device, or another device type
// Leaves the other fields alone; call it after CaptureEnvironment(). Never throws.
void AddTorchEnvironment(v1::Environment* env, const std::string& device);

// A CUDA version number as cudaRuntimeGetVersion / cudaDriverGetVersion return it
// (1000 * major + 10 * minor) as "major.minor", e.g. 12010 -> "12.1"; kUnknown for a
// value <= 0.
std::string FormatCudaVersion(int version);

}  // namespace torchscan::experiment
