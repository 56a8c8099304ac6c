#include "client/exit_codes.h"

namespace torchscan {

const std::vector<ExitCodeMeaning>& AllExitCodes() {
  static const std::vector<ExitCodeMeaning> codes = {
      {kExitOk, "success (whatever the speed label)"},
      {kExitCheckFailed, "the output check failed (both measurements kept, deltas and label withheld)"},
      {kExitBadInput, "bad input (flags, job or report files, --output, unknown job id)"},
      {kExitJobFailed, "the job failed (workload error, worker crash, timeout, cancelled, interrupted)"},
      {kExitUnreachable, "no daemon reachable (or the private one did not start)"},
      {kExitRefused, "refused (a daemon limit, permissions, a token, or the unix socket's permissions)"},
      {kExitGateFailed, "the verdict matched --fail-on (a CI gate on compare, compare-reports or history --against)"},
      {kExitInterrupted, "interrupted by Ctrl-C or SIGTERM"},
  };
  return codes;
}

std::string ExitCodesFooter() {
  std::string text = "Exit codes:";
  for (const ExitCodeMeaning& c : AllExitCodes()) text += "\n  " + std::to_string(c.code) + " " + c.meaning;
  return text;
}

ExitCode ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk: return kExitOk;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kOutOfRange: return kExitBadInput;
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded: return kExitUnreachable;
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnauthenticated: return kExitRefused;
    default: return kExitJobFailed;
  }
}

}  // namespace torchscan
