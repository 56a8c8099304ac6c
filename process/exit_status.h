// How a child process ended, from the raw status waitpid() gives, and the names of signals.
// Pure functions: no processes. Callers word their own sentences from these (a worker's
// "worker killed by signal 11 (SIGSEGV)", an RSS child's "RSS child was killed by signal ...").
//
// Failure cases: a status that is neither an exit nor a termination by a signal (a stopped or
// continued child, or garbage) decodes as kUnreadable with its raw value kept; an unknown
// signal number is named "signal N".
#pragma once

#include <string>

namespace torchscan::process {

struct ExitStatus {
  enum class Kind {
    kExited,      // exited by itself; `code` says how
    kSignaled,    // ended by `signal`
    kUnreadable,  // neither (see above); `raw` holds what was read
  };
  Kind kind = Kind::kUnreadable;
  int code = -1;   // kExited: the exit code (0..255)
  int signal = 0;  // kSignaled: the signal number
  int raw = 0;     // the status as waitpid() gave it
};

ExitStatus DecodeWaitStatus(int raw);

// "SIGKILL" for 9, "SIGSEGV" for 11; "signal N" for numbers the C library does not know.
std::string SignalName(int signal);

}  // namespace torchscan::process
