// Which device a workload runs on, checked against what this build can drive.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace torchscan::workloads {

struct ResolvedDevice {
  std::string name;   // normalised: "cpu" or "cuda:N"
  bool cuda = false;  // true for "cuda:N"
  int index = -1;     // N for CUDA, -1 for the CPU
};

// The name parsed by spec::ParseDeviceName (spec/device_name.h), then checked here against this
// machine: accepts "" and "cpu" (the CPU), "cuda" (= "cuda:0") and "cuda:N" when this TorchScan was
// built against a CUDA LibTorch (TORCHSCAN_LIBTORCH_CUDA) and CUDA device N is visible now.
// Everything else is kInvalidArgument naming the device and why: "mps" (no MPS backend in
// LibTorch on this platform), "cuda:N" on a CPU-only build or without such a GPU, malformed
// indices, unknown device types. For "cuda" devices it first loads LibTorch's CUDA half
// (workloads/cuda_support.h): CPU jobs never load it. Never throws.
absl::StatusOr<ResolvedDevice> ResolveDevice(const std::string& requested);

}  // namespace torchscan::workloads
