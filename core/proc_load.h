// Reads the counters core/cpu_load.h computes with, from /proc, for the timing of a job: a
// thin wrapper (Linux only) with no arithmetic of its own. No LibTorch.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "core/clock.h"
#include "core/cpu_load.h"
#include "proto/report.pb.h"

namespace torchscan {

// /proc/stat, /proc/self/stat and /proc/loadavg now, stamped with `clock`'s reading.
// Unavailable or InvalidArgument (from the parsers) when a file cannot be read or parsed.
absl::StatusOr<CpuLoadSample> ReadCpuLoad(Clock* clock = SteadyClock());

// The CPUs this process may run on (sched_getaffinity): the job's CPU set, since the worker
// sets its affinity first. Internal error when the call fails.
absl::StatusOr<std::vector<int>> ThisProcessCpus();

// LoadBetween(start, end) on ThisProcessCpus() at USER_HZ (sysconf(_SC_CLK_TCK)); the errors
// of either.
absl::StatusOr<v1::TimingLoad> LoadOnThisProcessCpus(const CpuLoadSample& start, const CpuLoadSample& end);

}  // namespace torchscan
