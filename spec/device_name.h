// A device's name as jobs and daemon configs write it, parsed once for the client, the daemon
// and the worker: "" or "cpu" (the CPU), "cuda" (= cuda:0) or "cuda:N". Whether the device exists
// is the worker's question (workloads/device.h); whether a daemon offers it, the daemon's
// (spec/job_spec.h). Also what a job on it can measure. No LibTorch.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace torchscan::spec {

inline constexpr int kMaxDeviceIndex = 9999;

struct DeviceName {
  bool cuda = false;
  int index = -1;    // N of cuda:N; -1 for the CPU
  std::string text;  // normalised: "cpu" or "cuda:N"
};

// InvalidArgument naming `text` and the fix (the message has no field: callers prefix theirs):
// "mps" (no MPS backend in LibTorch for this platform), a CUDA name whose index is not 0..9999,
// any other device type.
absl::StatusOr<DeviceName> ParseDeviceName(absl::string_view text);

// The passes that measure the host process, not the device: peak RSS (a fresh child's VmHWM)
// and instruction counts (callgrind). On a GPU job they would count the CUDA runtime's host
// work, so they are for CPU jobs only. "" when `pass` ("rss", "instructions") runs on `device`,
// else why not.
std::string PassUnsupportedOn(const DeviceName& device, absl::string_view pass);

}  // namespace torchscan::spec
