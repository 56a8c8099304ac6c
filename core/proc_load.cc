#include "core/proc_load.h"

#include <sched.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/status/status.h"

namespace torchscan {
namespace {

absl::StatusOr<std::string> ReadProcFile(const char* path) {
  std::ifstream in(path);
  if (!in)
    return absl::UnavailableError(std::string(path) + ": cannot be read; the load during timing is not recorded");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

absl::StatusOr<CpuLoadSample> ReadCpuLoad(Clock* clock) {
  absl::StatusOr<std::string> loadavg = ReadProcFile("/proc/loadavg");
  if (!loadavg.ok()) return loadavg.status();
  absl::StatusOr<std::string> stat = ReadProcFile("/proc/stat");
  if (!stat.ok()) return stat.status();
  absl::StatusOr<std::string> self = ReadProcFile("/proc/self/stat");
  if (!self.ok()) return self.status();
  CpuLoadSample sample;
  sample.monotonic_s = clock->NowSeconds();
  absl::StatusOr<std::map<int, int64_t>> busy = ParseProcStatBusyTicks(*stat);
  if (!busy.ok()) return busy.status();
  sample.busy_ticks = *std::move(busy);
  absl::StatusOr<int64_t> self_ticks = ParseSelfStatCpuTicks(*self);
  if (!self_ticks.ok()) return self_ticks.status();
  sample.self_ticks = *self_ticks;
  absl::StatusOr<double> load = ParseLoadavg1m(*loadavg);
  if (!load.ok()) return load.status();
  sample.loadavg_1m = *load;
  return sample;
}

absl::StatusOr<std::vector<int>> ThisProcessCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return absl::InternalError("sched_getaffinity failed");
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

absl::StatusOr<v1::TimingLoad> LoadOnThisProcessCpus(const CpuLoadSample& start, const CpuLoadSample& end) {
  absl::StatusOr<std::vector<int>> cpus = ThisProcessCpus();
  if (!cpus.ok()) return cpus.status();
  return LoadBetween(start, end, *cpus, static_cast<double>(sysconf(_SC_CLK_TCK)));
}

}  // namespace torchscan
