// Noise a GPU adds to timing that its driver can see (issue 43, item 3): an SM clock that moved
// while a run was timed, throttling (thermal, power, hardware slowdown), and other processes
// with work on the same GPU. Device::State reads a DeviceState before and after a run's timing;
// DeviceNoiseWarnings turns the two into the run's warnings. No LibTorch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "proto/report.pb.h"

namespace torchscan::devices {

// What a GPU's driver reports at one moment; each unset when it cannot be read.
struct DeviceState {
  std::optional<int> sm_clock_mhz;           // the current SM clock
  std::optional<uint64_t> throttle_reasons;  // NVML's clock event reasons, a bit mask (kThrottle*)
  std::optional<int> other_processes;        // compute processes on the GPU besides this one
};

// NVML's clocks event (throttle) reasons that slow a run down.
inline constexpr uint64_t kThrottleSoftwarePowerCap = 0x4;
inline constexpr uint64_t kThrottleHardwareSlowdown = 0x8;
inline constexpr uint64_t kThrottleSoftwareThermal = 0x20;
inline constexpr uint64_t kThrottleHardwareThermal = 0x40;
inline constexpr uint64_t kThrottlePowerBrake = 0x80;

// A clock that moved more than this share between the two samples is a warning.
inline constexpr double kClockChangeShare = 0.05;

// The warnings of a run on `device` ("cuda:0") timed between `before` and `after`:
//   gpu_clock_changed  the SM clock moved by more than kClockChangeShare
//   gpu_throttled      a slowing reason was active at either sample (named)
//   gpu_shared         another process had work on the GPU at either sample
// Each message says what was seen and what to do. None when nothing could be read.
std::vector<v1::Warning> DeviceNoiseWarnings(const DeviceState& before, const DeviceState& after,
                                             const std::string& device);

}  // namespace torchscan::devices
