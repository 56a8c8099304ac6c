// The load other work put on the job's CPUs while it was timed (the report's Timing.load,
// proto/report.proto): pure arithmetic over the text of /proc/stat, /proc/self/stat and
// /proc/loadavg, no I/O, no LibTorch. core/proc_load.h reads those files.
//
// Other work's CPU time on a CPU set over an interval = the busy time those CPUs' per-CPU
// /proc/stat lines gained (user + nice + system + irq + softirq; idle, iowait and steal are
// not busy, guest is already inside user) minus the CPU time this process gained
// (/proc/self/stat utime + stime). Its share is that time / (wall time x CPUs in the set).
// The counters tick at 1/USER_HZ (10 ms) and are sampled one file after the other, so over a
// short interval the difference can land a tick or two below zero or above the whole: the
// share is clamped to [0, 1] while other_cpu_s keeps the raw figure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/report.pb.h"
#include "proto/spec_limits.h"

namespace torchscan {

// One reading of the counters.
struct CpuLoadSample {
  std::map<int, int64_t> busy_ticks;  // per CPU number: busy ticks since boot
  int64_t self_ticks = 0;             // this process's utime + stime, in ticks
  double loadavg_1m = 0;              // /proc/loadavg's first figure
  double monotonic_s = 0;             // when it was read, on a monotonic clock
};

// The busy ticks of each "cpuN" line of /proc/stat (the aggregate "cpu" line is skipped).
// InvalidArgument naming the line when a cpuN line has fewer than 7 numbers or a bad number;
// InvalidArgument when there is no cpuN line at all.
absl::StatusOr<std::map<int, int64_t>> ParseProcStatBusyTicks(std::string_view proc_stat);

// utime + stime (fields 14 and 15) of a /proc/<pid>/stat text; the command name in
// parentheses may hold spaces and parentheses. InvalidArgument when the fields are missing.
absl::StatusOr<int64_t> ParseSelfStatCpuTicks(std::string_view self_stat);

// The first figure of /proc/loadavg. InvalidArgument when it is not a finite number >= 0.
absl::StatusOr<double> ParseLoadavg1m(std::string_view loadavg);

// "0-1,4,6-7" for {0, 1, 4, 6, 7} (sorted, duplicates once); "" for none.
std::string DescribeCpuSet(std::vector<int> cpus);

// The load between two samples on `cpus`, with `ticks_per_s` (USER_HZ). InvalidArgument when
// `cpus` is empty, a CPU of the set is missing from either sample, a counter went backwards,
// ticks_per_s <= 0, or `end` is not after `start`.
absl::StatusOr<v1::TimingLoad> LoadBetween(const CpuLoadSample& start, const CpuLoadSample& end,
                                           const std::vector<int>& cpus, double ticks_per_s);

// Adds a later timing pass's load of the same run to `pooled` (rounds): sums other_cpu_s and
// interval_s, keeps the first loadavg_1m_start, takes `later`'s loadavg_1m_end, and recomputes
// the share over the whole. An empty `pooled` (interval_s 0) becomes a copy of `later`.
void PoolTimingLoad(const v1::TimingLoad& later, v1::TimingLoad* pooled);

// A "busy_machine" warning when `load`'s other_cpu_share is above `limit`, naming the share,
// the CPUs and `whose` timing ("the baseline's"); none otherwise, and none for an empty load
// (interval_s 0: nothing was sampled).
std::optional<v1::Warning> BusyMachineWarning(const v1::TimingLoad& load, const std::string& whose,
                                              double limit = kBusyMachineOtherCpuShare);

}  // namespace torchscan
