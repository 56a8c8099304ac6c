#include "devices/device_noise.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace torchscan::devices {
namespace {

v1::Warning Warning(const std::string& code, std::string message) {
  v1::Warning w;
  w.set_code(code);
  w.set_message(std::move(message));
  return w;
}

std::vector<std::string> SlowingReasons(uint64_t reasons) {
  std::vector<std::string> named;
  for (const auto& [bit, name] : std::vector<std::pair<uint64_t, const char*>>{
           {kThrottleSoftwareThermal | kThrottleHardwareThermal, "thermal slowdown"},
           {kThrottleSoftwarePowerCap, "power cap"},
           {kThrottleHardwareSlowdown | kThrottlePowerBrake, "hardware slowdown"}})
    if ((reasons & bit) != 0) named.push_back(name);
  return named;
}

}  // namespace

std::vector<v1::Warning> DeviceNoiseWarnings(const DeviceState& before, const DeviceState& after,
                                             const std::string& device) {
  std::vector<v1::Warning> warnings;
  if (before.sm_clock_mhz && after.sm_clock_mhz && *before.sm_clock_mhz > 0 &&
      std::abs(*after.sm_clock_mhz - *before.sm_clock_mhz) > kClockChangeShare * *before.sm_clock_mhz)
    warnings.push_back(Warning(
        "gpu_clock_changed",
        absl::StrCat("the SM clock of ", device, " moved from ", *before.sm_clock_mhz, " to ", *after.sm_clock_mhz,
                     " MHz while it was timed: the blocks ran at different speeds; lock the clocks "
                     "(nvidia-smi --lock-gpu-clocks) or warm the GPU up longer")));
  std::vector<std::string> reasons;
  for (const DeviceState* s : {&before, &after})
    if (s->throttle_reasons)
      for (const std::string& r : SlowingReasons(*s->throttle_reasons))
        if (std::find(reasons.begin(), reasons.end(), r) == reasons.end()) reasons.push_back(r);
  if (!reasons.empty())
    warnings.push_back(Warning("gpu_throttled", absl::StrCat(device, " was slowed by ", absl::StrJoin(reasons, ", "),
                                                             " while it was timed (the driver's clock event "
                                                             "reasons): its times are slower than the GPU can run")));
  const int others = std::max(before.other_processes.value_or(0), after.other_processes.value_or(0));
  if (others > 0)
    warnings.push_back(Warning(
        "gpu_shared", absl::StrCat(others, " other process", others == 1 ? "" : "es", " had work on ", device,
                                   " while it was timed: their kernels shared the GPU with this run's; run on a "
                                   "GPU of its own (the daemon runs one job per device)")));
  return warnings;
}

}  // namespace torchscan::devices
