// torchscan-client's exit codes, which scripts and CI may rely on:
//   0  success (whatever the speed label)
//   1  the output check failed (both measurements were kept; deltas and label withheld)
//   2  bad input: flags, a job or report file, an unknown job id, a finished job to cancel
//   3  the job failed on the daemon (workload error, worker crash, timeout, cancelled, interrupted)
//   4  no daemon could be reached (or the private one did not start)
//   5  the daemon refused the request (a limit such as the queue length or upload size, permissions)
#pragma once

#include "absl/status/status.h"

namespace torchscan {

enum ExitCode : int {
  kExitOk = 0,
  kExitCheckFailed = 1,
  kExitBadInput = 2,
  kExitJobFailed = 3,
  kExitUnreachable = 4,
  kExitRefused = 5,
};

// The exit code for a failed status: InvalidArgument, NotFound, FailedPrecondition,
// AlreadyExists and OutOfRange are bad input; Unavailable and DeadlineExceeded are
// unreachable; ResourceExhausted, PermissionDenied and Unauthenticated are refusals;
// everything else (Aborted: a failed job, Internal ...) is a job failure. OK gives 0.
ExitCode ExitCodeFor(const absl::Status& status);

}  // namespace torchscan
