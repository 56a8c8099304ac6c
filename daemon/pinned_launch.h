// A job's worker launch on the devices it claims (device_scheduler.h's JobClaims): a job that
// uses the CPU keeps the daemon's launch (every GPU visible, the daemon's CPUs); a GPU job's
// worker sees only its GPUs (devices/gpu_pin.h: CUDA_VISIBLE_DEVICES and the pin variable its
// worker reads) and runs on the CPUs near them (their NUMA node's, within the daemon's
// cpu_set or, without one, the CPUs torchscand may use), or the daemon's CPUs when that is not
// known or leaves none.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "daemon/job_runner.h"

namespace torchscan::daemon {

// `near_cpu_list(gpu)`: the kernel's CPU list near the daemon's GPU `gpu` ("" unknown;
// devices::NearCpuListHere by default); `pin_environment(gpus)`: the variables that pin a
// worker to them (devices::PinEnvironmentHere by default). `available_cpus`: the CPUs
// torchscand may run on.
JobRunOptions PinnedRunOptions(
    const JobRunOptions& base, const std::vector<std::string>& claims, const std::vector<int>& available_cpus,
    const std::function<std::string(int)>& near_cpu_list = {},
    const std::function<std::vector<std::string>(const std::vector<int>&)>& pin_environment = {});

// How a lane's workers are launched, for DeviceLane: ("0-15", "CUDA_VISIBLE_DEVICES=1");
// "" each where they get the daemon's.
std::string LaunchCpus(const JobRunOptions& options);
std::string LaunchPin(const JobRunOptions& options);

}  // namespace torchscan::daemon
