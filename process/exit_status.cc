#include "process/exit_status.h"

#include <sys/wait.h>

#include <cstring>

#include "absl/strings/str_cat.h"

namespace torchscan::process {

ExitStatus DecodeWaitStatus(int raw) {
  ExitStatus status;
  status.raw = raw;
  if (WIFEXITED(raw)) {
    status.kind = ExitStatus::Kind::kExited;
    status.code = WEXITSTATUS(raw);
  } else if (WIFSIGNALED(raw)) {
    status.kind = ExitStatus::Kind::kSignaled;
    status.signal = WTERMSIG(raw);
  }
  return status;
}

std::string SignalName(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  return abbrev ? absl::StrCat("SIG", abbrev) : absl::StrCat("signal ", signal);
}

}  // namespace torchscan::process
