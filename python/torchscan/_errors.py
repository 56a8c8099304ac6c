"""TorchScanError: what went wrong, in the daemon's words, with the CLI's exit code for it.

The exit codes are client/exit_codes.h's (the README's table): 1 the output check failed,
2 bad input, 3 the job failed on the daemon, 4 no daemon could be reached, 5 refused, 6 the
verdict matched fail_on, 130 interrupted.
"""

import grpc

EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_JOB_FAILED = 3
EXIT_UNREACHABLE = 4
EXIT_REFUSED = 5
EXIT_GATE_FAILED = 6
EXIT_INTERRUPTED = 130

MEANINGS = {
    EXIT_CHECK_FAILED: "the output check failed",
    EXIT_BAD_INPUT: "bad input",
    EXIT_JOB_FAILED: "the job failed on the daemon",
    EXIT_UNREACHABLE: "no daemon could be reached",
    EXIT_REFUSED: "refused by the daemon",
    EXIT_GATE_FAILED: "the verdict matched fail_on",
    EXIT_INTERRUPTED: "interrupted",
}


class TorchScanError(Exception):
    """A failed call. `exit_code` is what the CLI would exit with; `meaning` says it in words."""

    def __init__(self, message, exit_code):
        super().__init__(message)
        self.exit_code = exit_code
        self.meaning = MEANINGS.get(exit_code, "error")


# As client/exit_codes.h ExitCodeFor maps a status.
_BY_STATUS = {
    grpc.StatusCode.INVALID_ARGUMENT: EXIT_BAD_INPUT,
    grpc.StatusCode.NOT_FOUND: EXIT_BAD_INPUT,
    grpc.StatusCode.FAILED_PRECONDITION: EXIT_BAD_INPUT,
    grpc.StatusCode.ALREADY_EXISTS: EXIT_BAD_INPUT,
    grpc.StatusCode.OUT_OF_RANGE: EXIT_BAD_INPUT,
    grpc.StatusCode.UNAVAILABLE: EXIT_UNREACHABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED: EXIT_UNREACHABLE,
    grpc.StatusCode.RESOURCE_EXHAUSTED: EXIT_REFUSED,
    grpc.StatusCode.PERMISSION_DENIED: EXIT_REFUSED,
    grpc.StatusCode.UNAUTHENTICATED: EXIT_REFUSED,
}


# Spec fields that daemon messages name, as a Python caller gives them (the CLI names its
# flags instead: client/flag_names.cc).
_KEYWORDS = (
    ("(WorkloadSpec.inputs)", "(inputs=, a tensor or shape per argument)"),
    ("(--daemon ADDRESS, or TORCHSCAN_DAEMON)", "(daemon=ADDRESS, or TORCHSCAN_DAEMON)"),
    # The fixes in a report's warnings (core/spread_cause.cc), as print(r) and the notebook show them.
    ("raise --min-run-time (min_run_time_s in a job file)", "raise min_run_time="),
    ("pin threads (--threads 1)", "pin threads (threads=1)"),
)


def python_words(message):
    """`message` with the spec's field names (and the CLI's flags in warnings' fixes) as this
    package's keywords."""
    for field, keyword in _KEYWORDS:
        message = message.replace(field, keyword)
    return message


def from_rpc(error, what):
    """A TorchScanError for a failed gRPC call `what` (e.g. "submit")."""
    code = error.code() if hasattr(error, "code") else None
    details = error.details() if hasattr(error, "details") else str(error)
    return TorchScanError(f"{what}: {python_words(details)}", _BY_STATUS.get(code, EXIT_JOB_FAILED))
