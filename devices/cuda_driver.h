// A GPU's facts as its driver reports them, read through the driver's own libraries loaded at
// run time (no CUDA toolkit or headers at build time): libcuda.so.1 for the name, memory,
// compute capability, multiprocessors, peak clocks, ECC, PCI bus id and the CUDA version the
// driver supports; libnvidia-ml.so.1 (NVML) for persistence mode and the state that adds
// noise (clocks, throttling, other processes). No LibTorch.
#pragma once

#include <string>

#include "devices/device_noise.h"
#include "proto/report.pb.h"

namespace torchscan::devices {

// Sets env's device_name (the GPU's name), cuda_driver ("major.minor") and gpu for CUDA device
// `ordinal` (CUDA's numbering: the visible devices). What cannot be read stays "unknown" (or
// unset), and gpu.unreadable says why ("libcuda.so.1 cannot be loaded: ..."). Never throws.
void DescribeFromDriver(int ordinal, v1::Environment* env);

// What the driver reports of CUDA device `ordinal` now (device_noise.h), through NVML: the SM
// clock, the clock event (throttle) reasons and how many other compute processes it runs;
// each unset when it cannot be read. Never throws.
DeviceState ReadDriverState(int ordinal);

// A CUDA version number as the runtime and driver report it (1000 * major + 10 * minor) as
// "major.minor", e.g. 12010 -> "12.1"; "unknown" for a value <= 0.
std::string FormatCudaVersion(int version);

}  // namespace torchscan::devices
