#include "worker/worker_outcome.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "process/exit_status.h"
#include "worker/worker_protocol.h"

namespace torchscan::worker {
namespace {

constexpr size_t kStderrTail = 4096;

std::string LastLine(const std::string& text) {
  const size_t newline = text.rfind('\n');
  return newline == std::string::npos ? text : text.substr(newline + 1);
}

}  // namespace

process::RunOptions WorkerRunOptions(const std::string& path, std::vector<std::string> args) {
  process::RunOptions options;
  options.spawn.path = path;
  options.spawn.args = std::move(args);
  options.spawn.setup.own_process_group = true;
  options.spawn.setup.no_core_dumps = true;
  options.spawn.setup.no_new_privs = true;
  options.spawn.setup.failed_exit_code = kWorkerLaunchSetupFailed;
  return options;
}

std::string ReadStderrTail(const std::string& path) {
  if (path.empty()) return "";
  // O_NOFOLLOW: the file lies in the worker's folder; a link put in its place is not read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return "";
  struct stat st;
  std::string text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    const off_t start = std::max<off_t>(0, st.st_size - static_cast<off_t>(kStderrTail));
    char buffer[kStderrTail];
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, start);
    if (n > 0) text.assign(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return std::string(absl::StripAsciiWhitespace(text));
}

std::string DescribeWorkerStatus(int status, const std::string& stderr_tail, const process::RunOptions& options,
                                 WorkerOutcome* out) {
  WorkerOutcome local;
  if (out == nullptr) out = &local;
  const process::SetUp& setup = options.spawn.setup;
  const process::ExitStatus end = process::DecodeWaitStatus(status);
  const std::string last = LastLine(stderr_tail);
  const std::string memory_note = setup.memory_bytes > 0 ? absl::StrCat("; worker_memory_bytes is ", setup.memory_bytes,
                                                                        " (it may have been exceeded)")
                                                         : "";
  if (end.kind == process::ExitStatus::Kind::kExited) {
    out->kind = WorkerOutcome::Kind::kExited;
    out->exit_code = end.code;
    if (end.code == 0) return "";
    return absl::StrCat("worker exited with status ", end.code, " (", DescribeWorkerExit(end.code), ")",
                        last.empty() ? "" : ": " + last, end.code == kWorkerOutOfMemory ? memory_note : "");
  }
  out->kind = WorkerOutcome::Kind::kSignaled;
  if (end.kind == process::ExitStatus::Kind::kUnreadable)
    return absl::StrCat("worker ended with an unreadable wait status ", status);
  out->signal = end.signal;
  const std::string cpu_note =
      end.signal == SIGXCPU || (end.signal == SIGKILL && setup.cpu_time_s > 0)
          ? absl::StrCat("; worker_cpu_time_s is ", setup.cpu_time_s, " (it may have been exceeded)")
          : "";
  return absl::StrCat("worker killed by signal ", end.signal, " (", process::SignalName(end.signal), ")", memory_note,
                      cpu_note, last.empty() ? "" : "; its last stderr line: " + last);
}

WorkerOutcome WorkerOutcomeOf(const process::RunResult& run, const process::RunOptions& options) {
  WorkerOutcome out;
  out.wall_s = run.wall_s;
  if (!run.started && run.error.text.empty()) {  // killed before it was started
    out.kind = WorkerOutcome::Kind::kKilled;
    out.reason = options.control != nullptr ? options.control->reason() : "";
    return out;
  }
  if (!run.started) {
    out.reason = run.error.exec ? absl::StrCat("cannot start worker ", options.spawn.path, ": ", run.error.text)
                                : absl::StrCat("cannot start worker: ", run.error.text);
    return out;
  }
  out.stderr_tail = ReadStderrTail(options.stderr_path);
  if (run.end == process::End::kTimedOut) {
    out.kind = WorkerOutcome::Kind::kTimedOut;
    out.signal = SIGKILL;
    out.reason = absl::StrFormat("worker exceeded job_wall_time_s %g and was killed (SIGKILL)", options.wall_time_s);
  } else if (run.end == process::End::kKilled) {
    out.kind = WorkerOutcome::Kind::kKilled;
    out.signal = SIGKILL;
    out.reason = options.control != nullptr ? options.control->reason() : "";
  } else {
    // A status that could not be read: -1 reads as neither an exit nor a signal.
    out.reason = DescribeWorkerStatus(run.status.value_or(-1), out.stderr_tail, options, &out);
  }
  return out;
}

}  // namespace torchscan::worker
