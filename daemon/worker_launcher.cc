#include "daemon/worker_launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <grp.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "daemon/worker_protocol.h"

namespace torchscan::daemon {
namespace {

namespace bp = boost::process;
using Clock = std::chrono::steady_clock;

constexpr size_t kMaxLine = 64 * 1024;
constexpr size_t kStderrTail = 4096;

// Writes a fixed message in the forked child (async-signal-safe) and exits.
[[noreturn]] void ChildFail(const char* message) {
  (void)!::write(STDERR_FILENO, message, std::strlen(message));
  ::_exit(kWorkerLaunchSetupFailed);
}

std::string ReadTail(const std::string& path) {
  if (path.empty()) return "";
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff start = std::max<std::streamoff>(0, size - static_cast<std::streamoff>(kStderrTail));
  in.seekg(start);
  std::stringstream text;
  text << in.rdbuf();
  return std::string(absl::StripAsciiWhitespace(text.str()));
}

std::string LastLine(const std::string& text) {
  const size_t newline = text.rfind('\n');
  return newline == std::string::npos ? text : text.substr(newline + 1);
}

// Reads what is available; false at end of file (or an error other than EAGAIN/EINTR).
bool ReadAvailable(int fd, std::string* buffer) {
  char chunk[4096];
  while (true) {
    const ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n > 0) {
      buffer->append(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && errno == EAGAIN;
  }
}

void EmitLines(std::string* buffer, bool flush_partial, const std::function<void(const std::string&)>& on_line) {
  size_t start = 0;
  while (true) {
    const size_t newline = buffer->find('\n', start);
    if (newline == std::string::npos) break;
    if (on_line) on_line(buffer->substr(start, newline - start));
    start = newline + 1;
  }
  buffer->erase(0, start);
  while (buffer->size() > kMaxLine || (flush_partial && !buffer->empty())) {
    const size_t n = std::min(buffer->size(), kMaxLine);
    if (on_line) on_line(buffer->substr(0, n));
    buffer->erase(0, n);
  }
}

// The kernel's raw wait status of an exited or killed child, as a reason.
void Describe(int status, const WorkerLaunch& launch, WorkerOutcome* out) {
  const std::string last = LastLine(out->stderr_tail);
  const std::string memory_note =
      launch.memory_bytes > 0 ? absl::StrCat("; worker_memory_bytes is ", launch.memory_bytes, " (it may have been exceeded)")
                              : "";
  if (WIFEXITED(status)) {
    out->kind = WorkerOutcome::Kind::kExited;
    out->exit_code = WEXITSTATUS(status);
    if (out->exit_code == 0) return;
    out->reason = absl::StrCat("worker exited with status ", out->exit_code, " (", DescribeWorkerExit(out->exit_code),
                               ")", last.empty() ? "" : ": " + last,
                               out->exit_code == kWorkerOutOfMemory ? memory_note : "");
  } else if (WIFSIGNALED(status)) {
    out->kind = WorkerOutcome::Kind::kSignaled;
    out->signal = WTERMSIG(status);
    const std::string cpu_note =
        out->signal == SIGXCPU || (out->signal == SIGKILL && launch.cpu_time_s > 0)
            ? absl::StrCat("; worker_cpu_time_s is ", launch.cpu_time_s, " (it may have been exceeded)")
            : "";
    out->reason = absl::StrCat("worker killed by signal ", out->signal, " (", SignalName(out->signal), ")",
                               memory_note, cpu_note, last.empty() ? "" : "; its last stderr line: " + last);
  } else {
    out->kind = WorkerOutcome::Kind::kSignaled;
    out->reason = absl::StrCat("worker ended with an unreadable wait status ", status);
  }
}

// True once the worker has ended. It is left a zombie (WNOWAIT), so that its pid, and with it
// its process group's id, cannot be taken by another process before the group is killed.
bool Ended(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

// Waits (at most kGroupGoneTimeout) until no process of group `pgid`, already sent SIGKILL,
// is left, reaping those handed to this process (torchscand is a child subreaper: a worker's
// orphans become its children). Orphans handed to another reaper are waited for until it
// reaped them.
constexpr std::chrono::seconds kGroupGoneTimeout(10);
void AwaitGroupGone(pid_t pgid) {
  const Clock::time_point deadline = Clock::now() + kGroupGoneTimeout;
  while (Clock::now() < deadline) {
    int status = 0;
    while (::waitpid(-pgid, &status, WNOHANG) > 0) {
    }
    if (::kill(-pgid, 0) != 0 && errno == ESRCH) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

WorkerControl::WorkerControl() : event_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

WorkerControl::~WorkerControl() {
  if (event_fd_ >= 0) ::close(event_fd_);
}

void WorkerControl::Kill(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  if (killed_) return;
  killed_ = true;
  reason_ = reason;
  const uint64_t one = 1;
  if (event_fd_ >= 0) (void)!::write(event_fd_, &one, sizeof(one));
}

bool WorkerControl::killed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return killed_;
}

std::string WorkerControl::reason() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reason_;
}

std::string SignalName(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  return abbrev ? absl::StrCat("SIG", abbrev) : absl::StrCat("signal ", signal);
}

WorkerOutcome RunWorker(const WorkerLaunch& launch, const std::function<void(const std::string&)>& on_line,
                        WorkerControl* control, const std::function<void(int pid)>& on_start) {
  WorkerOutcome out;
  const Clock::time_point start = Clock::now();
  if (control != nullptr && control->killed()) {
    out.kind = WorkerOutcome::Kind::kKilled;
    out.reason = control->reason();
    return out;
  }
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    out.reason = absl::StrCat("cannot start worker: pipe: ", std::strerror(errno));
    return out;
  }
  const std::string err_path = launch.stderr_path.empty() ? "/dev/null" : launch.stderr_path;
  const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (err_fd < 0) {
    out.reason = absl::StrCat("cannot start worker: cannot open ", err_path, ": ", std::strerror(errno));
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return out;
  }
  // Everything the child needs is prepared here: after fork only system calls run.
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int cpu : launch.cpus)
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &cpus);
  const bool set_affinity = !launch.cpus.empty();
  const rlimit memory{static_cast<rlim_t>(launch.memory_bytes), static_cast<rlim_t>(launch.memory_bytes)};
  const rlimit no_core{0, 0};
  const rlim_t cpu_seconds = static_cast<rlim_t>(std::ceil(launch.cpu_time_s));
  const rlimit cpu_time{cpu_seconds, cpu_seconds + 5};
  const rlimit open_files{static_cast<rlim_t>(launch.open_files), static_cast<rlim_t>(launch.open_files)};
  const gid_t gid = static_cast<gid_t>(launch.gid);
  const int out_fd = pipe_fds[1];
  const pid_t launcher = ::getpid();
  sigset_t no_signals;  // the daemon blocks SIGTERM/SIGINT for sigwait; workers must not inherit that
  sigemptyset(&no_signals);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  auto setup = [&](auto&) {
    if (::dup2(out_fd, STDOUT_FILENO) < 0 || ::dup2(err_fd, STDERR_FILENO) < 0)
      ChildFail("torchscan launcher: cannot redirect stdout/stderr\n");
    if (::setpgid(0, 0) != 0) ChildFail("torchscan launcher: setpgid failed\n");
    ::sigprocmask(SIG_SETMASK, &no_signals, nullptr);
    ::sigaction(SIGPIPE, &default_action, nullptr);
    if (set_affinity && ::sched_setaffinity(0, sizeof(cpus), &cpus) != 0)
      ChildFail("torchscan launcher: sched_setaffinity failed for cpu_set\n");
    if (launch.memory_bytes > 0 && ::setrlimit(RLIMIT_AS, &memory) != 0)
      ChildFail("torchscan launcher: setrlimit(RLIMIT_AS) failed for worker_memory_bytes\n");
    if (::setrlimit(RLIMIT_CORE, &no_core) != 0) ChildFail("torchscan launcher: setrlimit(RLIMIT_CORE) failed\n");
    if (cpu_seconds > 0 && ::setrlimit(RLIMIT_CPU, &cpu_time) != 0)
      ChildFail("torchscan launcher: setrlimit(RLIMIT_CPU) failed for worker_cpu_time_s\n");
    if (launch.open_files > 0 && ::setrlimit(RLIMIT_NOFILE, &open_files) != 0)
      ChildFail("torchscan launcher: setrlimit(RLIMIT_NOFILE) failed for worker_open_files\n");
    if (launch.gid >= 0 && (::setgroups(1, &gid) != 0 || ::setgid(gid) != 0))
      ChildFail("torchscan launcher: cannot switch to the worker_user's group (is torchscand root?)\n");
    if (launch.uid >= 0 && ::setuid(static_cast<uid_t>(launch.uid)) != 0)
      ChildFail("torchscan launcher: cannot switch to worker_user (is torchscand root?)\n");
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) ChildFail("torchscan launcher: prctl(PR_SET_NO_NEW_PRIVS) failed\n");
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) ChildFail("torchscan launcher: prctl(PR_SET_PDEATHSIG) failed\n");
    // A launcher that died before prctl took effect sent no signal: the child has a new parent.
    if (::getppid() != launcher) ChildFail("torchscan launcher: torchscand ended while the worker was starting\n");
  };
  std::error_code error;
  bp::child child;
  try {
    child = bp::child(bp::exe = launch.path, bp::args = launch.args, bp::std_in < bp::null,
                      bp::extend::on_exec_setup = setup, error);
  } catch (const std::exception& e) {
    error = std::make_error_code(std::errc::io_error);
    out.reason = absl::StrCat("cannot start worker ", launch.path, ": ", e.what());
  }
  ::close(pipe_fds[1]);
  ::close(err_fd);
  const int read_fd = pipe_fds[0];
  if (error || !child.valid()) {
    ::close(read_fd);
    if (out.reason.empty())
      out.reason = absl::StrCat("cannot start worker ", launch.path, ": ", error ? error.message() : "unknown error");
    out.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
    return out;
  }
  const pid_t pid = child.id();
  if (on_start) on_start(pid);
  ::fcntl(read_fd, F_SETFL, ::fcntl(read_fd, F_GETFL) | O_NONBLOCK);

  std::string buffer;
  bool eof = false;
  enum class End { kExited, kTimedOut, kKilled } end = End::kExited;
  while (true) {
    pollfd fds[2] = {{eof ? -1 : read_fd, POLLIN, 0}, {control ? control->wake_fd() : -1, POLLIN, 0}};
    int timeout_ms = eof ? 2 : 50;  // after EOF the worker is exiting: look for it often
    if (launch.wall_time_s > 0) {
      const double left = launch.wall_time_s - std::chrono::duration<double>(Clock::now() - start).count();
      timeout_ms = std::max(0, std::min(timeout_ms, static_cast<int>(left * 1000) + 1));
    }
    ::poll(fds, 2, timeout_ms);
    if (!eof && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      eof = !ReadAvailable(read_fd, &buffer);
      EmitLines(&buffer, eof, on_line);
    }
    if (control != nullptr && control->killed()) {
      end = End::kKilled;
      break;
    }
    if (launch.wall_time_s > 0 && std::chrono::duration<double>(Clock::now() - start).count() >= launch.wall_time_s) {
      end = End::kTimedOut;
      break;
    }
    if (Ended(pid)) break;
  }
  // The worker's whole group, however it ended: its RSS children too, which a worker that
  // crashed or was killed from outside leaves running; none may outlive its job.
  ::kill(-pid, SIGKILL);
  if (end != End::kExited) ::kill(pid, SIGKILL);
  std::error_code wait_error;
  if (child.running(wait_error)) child.wait(wait_error);
  AwaitGroupGone(pid);
  if (!eof) ReadAvailable(read_fd, &buffer);  // what an exited worker left in the pipe
  EmitLines(&buffer, true, end == End::kExited ? on_line : nullptr);
  ::close(read_fd);
  out.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  out.stderr_tail = ReadTail(launch.stderr_path);
  if (end == End::kTimedOut) {
    out.kind = WorkerOutcome::Kind::kTimedOut;
    out.signal = SIGKILL;
    out.reason = absl::StrFormat("worker exceeded job_wall_time_s %g and was killed (SIGKILL)", launch.wall_time_s);
  } else if (end == End::kKilled) {
    out.kind = WorkerOutcome::Kind::kKilled;
    out.signal = SIGKILL;
    out.reason = control->reason();
  } else {
    Describe(child.native_exit_code(), launch, &out);
  }
  return out;
}

}  // namespace torchscan::daemon
