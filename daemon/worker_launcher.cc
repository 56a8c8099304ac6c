#include "daemon/worker_launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <grp.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <thread>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "worker/worker_protocol.h"

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

// Writes `pid` in decimal and a newline to `fd` (async-signal-safe: for a forked child).
void WritePidLine(int fd, pid_t pid) {
  char digits[24];
  char* at = digits + sizeof(digits);
  *--at = '\n';
  unsigned long value = pid > 0 ? static_cast<unsigned long>(pid) : 0;
  do {
    *--at = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  (void)!::write(fd, at, static_cast<size_t>(digits + sizeof(digits) - at));
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

// ---------------------------------------------------------------- RunWorker's phases

namespace {

double SecondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Where the worker's output goes: its stdout into a pipe read here, its stderr into a file.
struct WorkerDescriptors {
  int read_fd = -1;   // the pipe's end read here
  int write_fd = -1;  // the pipe's end the child writes: its stdout
  int err_fd = -1;    // the stderr file (launch.stderr_path, else /dev/null): its stderr
  int in_fd = -1;     // its stdin: /dev/null, or a spare's end of the job socket
  int job_fd = -1;    // a spare's job socket, the end written here; -1 for a job's worker
};

// One RSS child started with the worker (WorkerLaunch.rss_children).
struct RssChildDescriptors {
  int worker_fd = -1;  // the worker's end of the socket (inherited by it)
  int child_fd = -1;   // the child's end: its stdin and stdout
  int err_fd = -1;     // an anonymous file (memfd): the child's stderr, read by the worker
};

void CloseAll(std::initializer_list<int> fds) {
  for (int fd : fds)
    if (fd >= 0) ::close(fd);
}

// Opens the pipe, the stderr file and stdin (a socket pair for a spare, whose job comes
// that way; a socket, so that writing to a spare that died fails instead of raising
// SIGPIPE); false with `reason` set when any fails (then nothing is left open).
bool OpenDescriptors(const WorkerLaunch& launch, bool job_socket, WorkerDescriptors* fds, std::string* reason) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    *reason = absl::StrCat("cannot start worker: pipe: ", std::strerror(errno));
    return false;
  }
  const std::string err_path = launch.stderr_path.empty() ? "/dev/null" : launch.stderr_path;
  const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (err_fd < 0) {
    *reason = absl::StrCat("cannot start worker: cannot open ", err_path, ": ", std::strerror(errno));
    CloseAll({pipe_fds[0], pipe_fds[1]});
    return false;
  }
  int in_fds[2] = {-1, -1};
  const bool in_ok = job_socket ? ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_fds) == 0
                                : (in_fds[0] = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;
  if (!in_ok) {
    *reason = absl::StrCat("cannot start worker: its stdin: ", std::strerror(errno));
    CloseAll({pipe_fds[0], pipe_fds[1], err_fd});
    return false;
  }
  fds->read_fd = pipe_fds[0];
  fds->write_fd = pipe_fds[1];
  fds->err_fd = err_fd;
  fds->in_fd = in_fds[0];
  fds->job_fd = in_fds[1];
  return true;
}

// The descriptors of launch.rss_children RSS children (close-on-exec here: the worker's
// process keeps what it needs, ChildSetup::StartRssChildren); false with `reason` set when
// any fails (then nothing is left open).
bool OpenRssChildDescriptors(const WorkerLaunch& launch, std::vector<RssChildDescriptors>* children,
                             std::string* reason) {
  for (int i = 0; i < launch.rss_children; ++i) {
    int pair[2] = {-1, -1};
    RssChildDescriptors c;
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0) {
      c.worker_fd = pair[0];
      c.child_fd = pair[1];
      c.err_fd = ::memfd_create("torchscan_rss_child stderr", MFD_CLOEXEC);
    }
    if (c.err_fd < 0) {
      *reason = absl::StrCat("cannot start worker: the descriptors of its RSS children: ", std::strerror(errno));
      CloseAll({c.worker_fd, c.child_fd});
      for (const RssChildDescriptors& open : *children) CloseAll({open.worker_fd, open.child_fd, open.err_fd});
      children->clear();
      return false;
    }
    children->push_back(c);
  }
  return true;
}

// `launch` with "--rss-waiting SOCKET_FD:STDERR_FD" per RSS child after its args.
WorkerLaunch WithRssChildArgs(WorkerLaunch launch, const std::vector<RssChildDescriptors>& children) {
  for (const RssChildDescriptors& c : children)
    launch.args.insert(launch.args.end(), {"--rss-waiting", FormatRssWaitingFds({c.worker_fd, c.err_fd})});
  return launch;
}

// What the forked child does before exec (worker_launcher.h), in that order. Everything it
// needs is prepared here, in the launcher: after fork only system calls run.
class ChildSetup {
 public:
  // `started_fd`: the write end of a pipe that gets one byte per RSS child forked (-1: none).
  ChildSetup(const WorkerLaunch& launch, const WorkerDescriptors& fds,
             const std::vector<RssChildDescriptors>& rss_children = {}, int started_fd = -1)
      : launch_(launch),
        rss_children_(rss_children),
        started_fd_(started_fd),
        rss_pids_(rss_children.size(), 0),
        rss_child_argv_{const_cast<char*>(launch.rss_child_path.c_str()), const_cast<char*>("--wait"), nullptr},
        out_fd_(fds.write_fd),
        err_fd_(fds.err_fd),
        in_fd_(fds.in_fd),
        set_affinity_(!launch.cpus.empty()),
        memory_{static_cast<rlim_t>(launch.memory_bytes), static_cast<rlim_t>(launch.memory_bytes)},
        cpu_seconds_(static_cast<rlim_t>(std::ceil(launch.cpu_time_s))),
        cpu_time_{cpu_seconds_, cpu_seconds_ + 5},
        open_files_{static_cast<rlim_t>(launch.open_files), static_cast<rlim_t>(launch.open_files)},
        gid_(static_cast<gid_t>(launch.gid)),
        launcher_(::getpid()) {
    CPU_ZERO(&cpus_);
    for (int cpu : launch.cpus)
      if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &cpus_);
    sigemptyset(&no_signals_);  // the daemon blocks SIGTERM/SIGINT for sigwait; workers must not inherit that
    default_action_.sa_handler = SIG_DFL;
  }

  // In the forked child: returns once all of it is applied; on any failure writes why to the
  // child's stderr and exits with kWorkerLaunchSetupFailed.
  void Apply() const {
    if (::dup2(out_fd_, STDOUT_FILENO) < 0 || ::dup2(err_fd_, STDERR_FILENO) < 0 || ::dup2(in_fd_, STDIN_FILENO) < 0)
      ChildFail("torchscan launcher: cannot redirect stdin/stdout/stderr\n");
    if (launch_.own_process_group && ::setpgid(0, 0) != 0) ChildFail("torchscan launcher: setpgid failed\n");
    ::sigprocmask(SIG_SETMASK, &no_signals_, nullptr);
    ::sigaction(SIGPIPE, &default_action_, nullptr);
    if (set_affinity_ && ::sched_setaffinity(0, sizeof(cpus_), &cpus_) != 0)
      ChildFail("torchscan launcher: sched_setaffinity failed for cpu_set\n");
    if (launch_.memory_bytes > 0 && ::setrlimit(RLIMIT_AS, &memory_) != 0)
      ChildFail("torchscan launcher: setrlimit(RLIMIT_AS) failed for worker_memory_bytes\n");
    if (::setrlimit(RLIMIT_CORE, &no_core_) != 0) ChildFail("torchscan launcher: setrlimit(RLIMIT_CORE) failed\n");
    if (cpu_seconds_ > 0 && ::setrlimit(RLIMIT_CPU, &cpu_time_) != 0)
      ChildFail("torchscan launcher: setrlimit(RLIMIT_CPU) failed for worker_cpu_time_s\n");
    if (launch_.open_files > 0 && ::setrlimit(RLIMIT_NOFILE, &open_files_) != 0)
      ChildFail("torchscan launcher: setrlimit(RLIMIT_NOFILE) failed for worker_open_files\n");
    if (launch_.gid >= 0 && (::setgroups(1, &gid_) != 0 || ::setgid(gid_) != 0))
      ChildFail("torchscan launcher: cannot switch to the worker_user's group (is torchscand root?)\n");
    if (launch_.uid >= 0 && ::setuid(static_cast<uid_t>(launch_.uid)) != 0)
      ChildFail("torchscan launcher: cannot switch to worker_user (is torchscand root?)\n");
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) ChildFail("torchscan launcher: prctl(PR_SET_NO_NEW_PRIVS) failed\n");
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) ChildFail("torchscan launcher: prctl(PR_SET_PDEATHSIG) failed\n");
    // A launcher that died before prctl took effect sent no signal: the child has a new parent.
    if (::getppid() != launcher_) ChildFail("torchscan launcher: torchscand ended while the worker was starting\n");
    StartRssChildren();
  }

  // In the forked child when the worker's exec failed (it then exits): kills and reaps the RSS
  // children it started, so that none is handed to torchscand, their subreaper, which reaps
  // only the process groups of workers that started (a zombie per failed start otherwise).
  void EndRssChildren() const {
    for (pid_t pid : rss_pids_) {
      if (pid <= 0) continue;
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }

 private:
  // Forks each RSS child from this process (which becomes the worker: they are its children),
  // with everything above already applied, and tells the worker its pid on its socket: the
  // child writes it itself before its exec, so it comes before anything the child's program
  // writes there (this process, resumed at the exec, could be outrun); "0" if none was forked.
  // vfork: no fork handlers run in this copy of a multi-threaded daemon, and the child only
  // redirects, arranges to die with its parent and execs.
  void StartRssChildren() const {
    const pid_t self = ::getpid();
    for (size_t i = 0; i < rss_children_.size(); ++i) {
      const RssChildDescriptors& c = rss_children_[i];
      const pid_t pid = ::vfork();
      if (pid == 0) {
        if (::dup2(c.child_fd, STDIN_FILENO) < 0 || ::dup2(c.child_fd, STDOUT_FILENO) < 0 ||
            ::dup2(c.err_fd, STDERR_FILENO) < 0)
          ::_exit(kWorkerLaunchSetupFailed);
        if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != self) ::_exit(kWorkerLaunchSetupFailed);
        WritePidLine(STDOUT_FILENO, ::getpid());
        ::execv(rss_child_argv_[0], rss_child_argv_);
        static constexpr char kNoExec[] = "torchscan launcher: cannot execute the RSS child (rss_child_path)\n";
        (void)!::write(STDERR_FILENO, kNoExec, sizeof(kNoExec) - 1);
        ::_exit(127);
      }
      rss_pids_[i] = pid;  // here, not in the vfork child: it shares this memory
      if (pid > 0 && started_fd_ >= 0) (void)!::write(started_fd_, "+", 1);  // the launcher counts these
      if (pid < 0) WritePidLine(c.child_fd, 0);
    }
    // Only now, so that no child inherited them: the worker keeps its ends past exec.
    for (const RssChildDescriptors& c : rss_children_)
      if (::fcntl(c.worker_fd, F_SETFD, 0) != 0 || ::fcntl(c.err_fd, F_SETFD, 0) != 0)
        ChildFail("torchscan launcher: cannot pass the RSS children's descriptors to the worker\n");
  }

  const WorkerLaunch& launch_;
  const std::vector<RssChildDescriptors> rss_children_;
  const int started_fd_;
  mutable std::vector<pid_t> rss_pids_;  // sized here; the forked child's copy records each child's pid
  char* const rss_child_argv_[3];
  const int out_fd_;
  const int err_fd_;
  const int in_fd_;
  cpu_set_t cpus_;
  const bool set_affinity_;
  const rlimit memory_;
  const rlimit no_core_{0, 0};
  const rlim_t cpu_seconds_;
  const rlimit cpu_time_;
  const rlimit open_files_;
  const gid_t gid_;
  const pid_t launcher_;
  sigset_t no_signals_;
  struct sigaction default_action_ {};
};

// Starts the worker, `setup` applied in the child; false with `reason` set when it did not start.
// A child forked whose exec failed is reaped here (Boost.Process returns no handle of it), and
// the RSS children it had started are reaped by it first (ChildSetup::EndRssChildren).
bool Spawn(const WorkerLaunch& launch, const ChildSetup& setup, bp::child* child, std::string* reason) {
  std::error_code error;
  try {
    *child = bp::child(
        bp::exe = launch.path, bp::args = launch.args, bp::extend::on_exec_setup = [&setup](auto&) { setup.Apply(); },
        bp::extend::on_exec_error = [&setup](auto&, const std::error_code&) { setup.EndRssChildren(); },
        bp::extend::on_error =
            [](auto& exec, const std::error_code&) {
              if (exec.pid > 0)
                while (::waitpid(exec.pid, nullptr, 0) < 0 && errno == EINTR) {
                }
            },
        error);
  } catch (const std::exception& e) {
    error = std::make_error_code(std::errc::io_error);
    *reason = absl::StrCat("cannot start worker ", launch.path, ": ", e.what());
  }
  if (!error && child->valid()) return true;
  if (reason->empty())
    *reason = absl::StrCat("cannot start worker ", launch.path, ": ", error ? error.message() : "unknown error");
  return false;
}

// The worker's stdout, read here without blocking and handed on line by line.
class OutputPump {
 public:
  OutputPump(int fd, std::function<void(const std::string&)> on_line) : fd_(fd), on_line_(std::move(on_line)) {
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
  }
  int fd() const { return fd_; }
  // Lines from now on go to `on_line` (a spare's, once it has its job).
  void set_on_line(std::function<void(const std::string&)> on_line) { on_line_ = std::move(on_line); }
  bool eof() const { return eof_; }

  // Reads what is there and hands on the complete lines (everything, at end of file).
  void Read() {
    eof_ = !ReadAvailable(fd_, &buffer_);
    EmitLines(&buffer_, eof_, on_line_);
  }

  // Once the worker is gone: reads what it left in the pipe, hands it on when `deliver` (a
  // worker that exited by itself), drops it otherwise, and closes the pipe.
  void Finish(bool deliver) {
    if (!eof_) ReadAvailable(fd_, &buffer_);
    EmitLines(&buffer_, true, deliver ? on_line_ : nullptr);
    ::close(fd_);
    closed_ = true;
  }

 private:
  const int fd_;
  std::function<void(const std::string&)> on_line_;
  std::string buffer_;
  bool eof_ = false;
  bool closed_ = false;

 public:
  bool closed() const { return closed_; }
};

enum class End { kExited, kTimedOut, kKilled };

// Hands on the worker's stdout until the worker ends by itself (left a zombie: Ended), runs
// past launch.wall_time_s, or `control` is told to kill it.
End PumpUntilEnd(pid_t pid, const WorkerLaunch& launch, WorkerControl* control, Clock::time_point start,
                 OutputPump* pump) {
  while (true) {
    pollfd fds[2] = {{pump->eof() ? -1 : pump->fd(), POLLIN, 0}, {control ? control->wake_fd() : -1, POLLIN, 0}};
    int timeout_ms = pump->eof() ? 2 : 50;  // after EOF the worker is exiting: look for it often
    if (launch.wall_time_s > 0) {
      const double left = launch.wall_time_s - SecondsSince(start);
      timeout_ms = std::max(0, std::min(timeout_ms, static_cast<int>(left * 1000) + 1));
    }
    ::poll(fds, 2, timeout_ms);
    if (!pump->eof() && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) pump->Read();
    if (control != nullptr && control->killed()) return End::kKilled;
    if (launch.wall_time_s > 0 && SecondsSince(start) >= launch.wall_time_s) return End::kTimedOut;
    if (Ended(pid)) return End::kExited;
  }
}

// The worker's whole group, however it ended: its RSS children too, which a worker that
// crashed or was killed from outside leaves running; none may outlive its job. Returns once
// the worker is reaped and none of its group is left (AwaitGroupGone). A worker left in the
// launcher's group (own_process_group false): only the worker, the group is not ours.
void KillAndReapGroup(pid_t pid, End end, bool own_group, bp::child* child) {
  if (own_group) ::kill(-pid, SIGKILL);
  if (end != End::kExited) ::kill(pid, SIGKILL);
  std::error_code wait_error;
  if (child->running(wait_error)) child->wait(wait_error);
  if (own_group) AwaitGroupGone(pid);
}

// How it ended: kind, signal and reason.
void DescribeEnd(End end, const bp::child& child, const WorkerLaunch& launch, const WorkerControl* control,
                 WorkerOutcome* out) {
  if (end == End::kTimedOut) {
    out->kind = WorkerOutcome::Kind::kTimedOut;
    out->signal = SIGKILL;
    out->reason = absl::StrFormat("worker exceeded job_wall_time_s %g and was killed (SIGKILL)", launch.wall_time_s);
  } else if (end == End::kKilled) {
    out->kind = WorkerOutcome::Kind::kKilled;
    out->signal = SIGKILL;
    out->reason = control->reason();
  } else {
    Describe(child.native_exit_code(), launch, out);
  }
}

// From the job's start on (`start`: launch, or a spare's handoff): hands on the worker's
// lines until it ends, is killed or times out, then kills and reaps its group and says how
// it ended.
WorkerOutcome Supervise(bp::child* child, OutputPump* pump, const WorkerLaunch& launch, WorkerControl* control,
                        Clock::time_point start) {
  WorkerOutcome out;
  const pid_t pid = child->id();
  const End end = PumpUntilEnd(pid, launch, control, start, pump);
  KillAndReapGroup(pid, end, launch.own_process_group, child);
  pump->Finish(/*deliver=*/end == End::kExited);
  out.wall_s = SecondsSince(start);
  out.stderr_tail = ReadTail(launch.stderr_path);
  DescribeEnd(end, *child, launch, control, &out);
  return out;
}

}  // namespace

WorkerOutcome RunWorker(const WorkerLaunch& launch, const std::function<void(const std::string&)>& on_line,
                        WorkerControl* control, const std::function<void(int pid)>& on_start,
                        const std::function<void(int started)>& on_rss_children) {
  WorkerOutcome out;
  const Clock::time_point start = Clock::now();
  if (control != nullptr && control->killed()) {
    out.kind = WorkerOutcome::Kind::kKilled;
    out.reason = control->reason();
    return out;
  }
  WorkerDescriptors fds;
  if (!OpenDescriptors(launch, /*job_socket=*/false, &fds, &out.reason)) return out;
  std::vector<RssChildDescriptors> rss_children;
  if (!OpenRssChildDescriptors(launch, &rss_children, &out.reason)) {
    CloseAll({fds.read_fd, fds.write_fd, fds.err_fd, fds.in_fd});
    return out;
  }
  // One byte per RSS child actually forked, written by the worker's process before its exec.
  int started_pipe[2] = {-1, -1};
  if (!rss_children.empty() && ::pipe2(started_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    out.reason = absl::StrCat("cannot start worker: pipe: ", std::strerror(errno));
    CloseAll({fds.read_fd, fds.write_fd, fds.err_fd, fds.in_fd});
    for (const RssChildDescriptors& c : rss_children) CloseAll({c.worker_fd, c.child_fd, c.err_fd});
    return out;
  }
  const ChildSetup setup(launch, fds, rss_children, started_pipe[1]);
  bp::child child;
  const bool started = Spawn(WithRssChildArgs(launch, rss_children), setup, &child, &out.reason);
  // The child's ends: end of file on the pipe must come from the worker's side.
  CloseAll({fds.write_fd, fds.err_fd, fds.in_fd, started_pipe[1]});
  for (const RssChildDescriptors& c : rss_children) CloseAll({c.worker_fd, c.child_fd, c.err_fd});
  // Its exec succeeded, so every byte is written: the forking happens before it.
  int rss_started = 0;
  char bytes[64];
  for (ssize_t n; started_pipe[0] >= 0 && (n = ::read(started_pipe[0], bytes, sizeof(bytes))) != 0;) {
    if (n > 0) rss_started += static_cast<int>(n);
    else if (errno != EINTR) break;
  }
  CloseAll({started_pipe[0]});
  if (!started) {
    ::close(fds.read_fd);
    out.wall_s = SecondsSince(start);
    return out;
  }
  if (on_start) on_start(child.id());
  if (!rss_children.empty() && on_rss_children) on_rss_children(rss_started);
  OutputPump pump(fds.read_fd, on_line);
  return Supervise(&child, &pump, launch, control, start);
}

// ---------------------------------------------------------------- SpareWorker

struct SpareWorker::Process {
  bp::child child;
  std::unique_ptr<OutputPump> pump;
  int job_fd = -1;
};

std::unique_ptr<SpareWorker> SpareWorker::Start(const WorkerLaunch& launch, std::string* reason) {
  WorkerDescriptors fds;
  if (!OpenDescriptors(launch, /*job_socket=*/true, &fds, reason)) return nullptr;
  const ChildSetup setup(launch, fds);
  std::unique_ptr<SpareWorker> spare(new SpareWorker(launch));
  spare->process_ = std::make_unique<Process>();
  const bool started = Spawn(launch, setup, &spare->process_->child, reason);
  CloseAll({fds.write_fd, fds.err_fd, fds.in_fd});
  if (!started) {
    CloseAll({fds.read_fd, fds.job_fd});
    spare->process_.reset();
    return nullptr;
  }
  spare->process_->job_fd = fds.job_fd;
  spare->process_->pump = std::make_unique<OutputPump>(fds.read_fd, [ready = &spare->ready_](const std::string& text) {
    const std::optional<WorkerLine> line = ParseWorkerLine(text);
    if (line && line->kind == WorkerLine::Kind::kReady) *ready = true;
  });
  return spare;
}

SpareWorker::SpareWorker(const WorkerLaunch& launch) : launch_(launch) {}

SpareWorker::~SpareWorker() {
  if (!process_) return;
  if (!ended_) KillAndReapGroup(pid(), End::kKilled, /*own_group=*/true, &process_->child);
  if (!process_->pump->closed()) process_->pump->Finish(/*deliver=*/false);
  CloseAll({process_->job_fd});
}

int SpareWorker::pid() const { return process_ ? process_->child.id() : 0; }

SpareWorker::State SpareWorker::Wait(int timeout_ms, const WorkerControl* control) {
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  OutputPump& pump = *process_->pump;
  while (!ended_) {
    if (!pump.eof()) pump.Read();  // what it printed so far (without blocking)
    if (Ended(pid())) {
      KillAndReapGroup(pid(), End::kExited, /*own_group=*/true, &process_->child);
      pump.Finish(/*deliver=*/false);
      ended_ = true;
      WorkerOutcome out;
      out.stderr_tail = ReadTail(launch_.stderr_path);
      Describe(process_->child.native_exit_code(), launch_, &out);
      end_reason_ = out.reason.empty() ? "worker exited with status 0 before it had a job" : out.reason;
      break;
    }
    if (ready_) return State::kReady;
    const int left_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
    if (left_ms <= 0 || (control != nullptr && control->killed())) return State::kLoading;
    pollfd fds[2] = {{pump.eof() ? -1 : pump.fd(), POLLIN, 0}, {control ? control->wake_fd() : -1, POLLIN, 0}};
    ::poll(fds, 2, std::min(left_ms, pump.eof() ? 2 : 50));  // after EOF it is exiting: look often
  }
  return State::kEnded;
}

WorkerOutcome SpareWorker::Run(const WorkerLaunch& job, const std::string& handoff,
                               const std::function<void(const std::string&)>& on_line, WorkerControl* control,
                               const std::function<void(int pid)>& on_start) {
  const Clock::time_point start = Clock::now();
  // A write that fails (the spare died just now) is seen by Supervise as its end.
  size_t written = 0;
  while (written < handoff.size()) {
    const ssize_t n = ::send(process_->job_fd, handoff.data() + written, handoff.size() - written, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  CloseAll({process_->job_fd});  // end of file: the handoff is whole
  process_->job_fd = -1;
  if (on_start) on_start(pid());
  process_->pump->set_on_line(on_line);
  ended_ = true;  // Supervise reaps it
  return Supervise(&process_->child, process_->pump.get(), job, control, start);
}

}  // namespace torchscan::daemon
