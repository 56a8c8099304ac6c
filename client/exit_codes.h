// torchscan-client's exit codes, which scripts and CI may rely on. This file is their one
// source: `--help` prints ExitCodesFooter(), and exit_codes_test checks that the README's
// table lists every code of AllExitCodes() with its meaning.
//   0    success (whatever the speed label)
//   1    the output check failed (both measurements were kept; deltas and label withheld)
//   2    bad input: flags, a job or report file, --output, an unknown job id, a finished job
//        to cancel
//   3    the job failed on the daemon (workload error, worker crash, timeout, cancelled,
//        interrupted)
//   4    no daemon could be reached (or the private one did not start)
//   5    refused: by the daemon (a limit such as the queue length or upload size,
//        permissions, a token) or by the unix socket's permissions
//   6    the verdict matched --fail-on (compare, compare-reports, history --against: a CI gate;
//        client/verdict_gate.h)
//   130  interrupted by Ctrl-C (SIGINT) or SIGTERM while the client waited
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace torchscan {

enum ExitCode : int {
  kExitOk = 0,
  kExitCheckFailed = 1,
  kExitBadInput = 2,
  kExitJobFailed = 3,
  kExitUnreachable = 4,
  kExitRefused = 5,
  kExitGateFailed = 6,
  kExitInterrupted = 130,
};

struct ExitCodeMeaning {
  ExitCode code;
  const char* meaning;  // short, as in the README's table
};

// Every exit code with its meaning, in increasing order.
const std::vector<ExitCodeMeaning>& AllExitCodes();

// "Exit codes:" then one "  N meaning" line per code: the --help footer.
std::string ExitCodesFooter();

// The exit code for a failed status: InvalidArgument, NotFound, FailedPrecondition,
// AlreadyExists and OutOfRange are bad input; Unavailable and DeadlineExceeded are
// unreachable; ResourceExhausted, PermissionDenied and Unauthenticated are refusals;
// everything else (Aborted: a failed job, Internal ...) is a job failure. OK gives 0.
// (kExitInterrupted comes from no status: the client returns it when interrupted.)
ExitCode ExitCodeFor(const absl::Status& status);

}  // namespace torchscan
