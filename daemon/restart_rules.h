// What a daemon start does to the job records it finds (start-up policy; JobStore::LoadAll
// applies it while it reads them, and stores what changed):
//   - a job found running was cut off by the previous daemon's end: it becomes interrupted,
//     with the reason as its error, finished `now`, without a worker pid; except, on a Slurm
//     front, a job Slurm took (Job.slurm_job_id): it runs on without the front, which
//     follows it again (slurm_front.h);
//   - only a queued job keeps a queue position (the queue gives it a live one);
//   - a succeeded measure or compare job without a history summary (finished by an older
//     daemon) is to get one from its result (result_summary.h).
// Pure functions of the record: no I/O, no errors; thread-compatible. gRPC-free.
#pragma once

#include <string>

#include "proto/service.pb.h"

namespace torchscan::daemon {

// Whether a job in `state` has finished (neither queued, running nor unspecified): its record
// no longer changes, so a copy read again from its job.json is the record.
bool IsFinished(v1::Job::State state);

// Interrupts a job found running (see above). True when `job` changed (it must be stored).
// `slurm_front`: this daemon is a Slurm front.
bool InterruptIfRunning(v1::Job& job, const std::string& now, bool slurm_front = false);
// Clears the queue position of a job that is not queued.
void ClearStaleQueuePosition(v1::Job& job);
// Whether the job is to get its history summary from its result at this start.
bool NeedsSummary(const v1::Job& job);

}  // namespace torchscan::daemon
