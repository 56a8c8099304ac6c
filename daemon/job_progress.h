// How a running job's progress and end reach its record (JobRecords, job_records.h), for
// both ways jobs run: on this machine (executor.h) and on a Slurm node (slurm_front.h). Each
// function changes the record, wakes the watchers and stores state changes; the caller holds
// records.mu(). gRPC-free. A job's own text (its phase lines, the error it ended with) enters
// the record as spec::PrintableLine makes it: valid UTF-8, no control character, cut to
// kMaxPhaseBytes / kMaxErrorBytes, so no job can break a listing or drive a terminal.
#pragma once

#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "daemon/job_records.h"
#include "daemon/job_runner.h"

namespace torchscan::daemon {

inline constexpr size_t kMaxPhaseBytes = 200;   // a phase name, as the record keeps it
inline constexpr size_t kMaxErrorBytes = 4000;  // why a job ended, as the record keeps it
// Job.phase once its worker sent more than kMaxJobPhases (job_phases.h) phases.
inline constexpr char kPhasesCapped[] = "phases past the daemon's cap, not kept";

// The worker's phase line: the job's phase (its blocks back to 0) and a timeline span.
void RecordPhase(JobRecords& records, const std::string& id, const std::string& phase)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(records.mu());
// The worker's blocks line: blocks done in the current timing phase.
void RecordBlocks(JobRecords& records, const std::string& id, int64_t blocks)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(records.mu());

// Records how job `id` ended: succeeded (phase done, the result completed by
// JobRecords::CompleteResult, its summary, verdict and output check), else `killed_state`
// when outcome.killed (cancelled or interrupted: the caller knows which), else failed; the
// error is outcome.error. Ends its timeline and stores the record.
void RecordEnd(JobRecords& records, const std::string& id, JobRunOutcome& outcome, v1::Job::State killed_state)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(records.mu());

}  // namespace torchscan::daemon
