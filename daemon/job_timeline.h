// Figures over a running torchscand, shared by the daemon benchmark and the load test:
// when its jobs executed (from their records) and how much memory the daemon holds.
// gRPC-free; reads job records and /proc only.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "proto/service.pb.h"

namespace torchscan::daemon {

// "2026-11-29T21:45:49.123Z" (core/timestamp.h's format) as seconds since the epoch;
// NaN when the text is not in that format (e.g. empty: the job never started).
double ParseRfc3339Seconds(const std::string& text);

// Executions that overlap an earlier one: the jobs with both started_at and finished_at
// (others are ignored), sorted by start; a job counts once when it started before some
// earlier-started job finished. 0 for a daemon that runs one job at a time. Timestamps
// have 1 ms resolution, so a job starting in the millisecond another finished is not an
// overlap.
int CountOverlappingExecutions(const std::vector<v1::Job>& jobs);

// VmRSS of process `pid` in MiB, from /proc/<pid>/status; -1 when unreadable (no such
// process, not Linux).
double VmRssMiB(pid_t pid);

}  // namespace torchscan::daemon
