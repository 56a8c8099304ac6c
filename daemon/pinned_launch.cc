#include "daemon/pinned_launch.h"

#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "core/environment.h"
#include "daemon/config.h"
#include "devices/gpu_pin.h"
#include "spec/device_name.h"

namespace torchscan::daemon {

JobRunOptions PinnedRunOptions(
    const JobRunOptions& base, const std::vector<std::string>& claims, const std::vector<int>& available_cpus,
    const std::function<std::string(int)>& near_cpu_list,
    const std::function<std::vector<std::string>(const std::vector<int>&)>& pin_environment) {
  std::vector<int> gpus;
  for (const std::string& device : claims) {
    absl::StatusOr<spec::DeviceName> name = spec::ParseDeviceName(device);
    if (!name.ok() || !name->cuda) return base;  // the CPU
    gpus.push_back(name->index);
  }
  if (gpus.empty()) return base;
  JobRunOptions pinned = base;
  pinned.worker.environment = pin_environment ? pin_environment(gpus) : devices::PinEnvironmentHere(gpus);
  const std::vector<int>& allowed = base.worker.cpus.empty() ? available_cpus : base.worker.cpus;
  std::set<int> near;
  for (int gpu : gpus) {
    const std::string list = near_cpu_list ? near_cpu_list(gpu) : devices::NearCpuListHere(gpu);
    absl::StatusOr<std::vector<int>> cpus = list.empty() ? absl::NotFoundError("") : ParseCpuList(list);
    if (!cpus.ok()) return pinned;  // not known for one of them: the daemon's CPUs
    near.insert(cpus->begin(), cpus->end());
  }
  std::vector<int> both;
  for (int cpu : allowed)
    if (near.count(cpu) != 0) both.push_back(cpu);
  if (!both.empty()) pinned.worker.cpus = both;
  return pinned;
}

std::string LaunchCpus(const JobRunOptions& options) { return FormatCpuList(options.worker.cpus); }

std::string LaunchPin(const JobRunOptions& options) {
  for (const std::string& entry : options.worker.environment)
    if (absl::StartsWith(entry, "CUDA_VISIBLE_DEVICES=")) return entry;
  return "";
}

}  // namespace torchscan::daemon
