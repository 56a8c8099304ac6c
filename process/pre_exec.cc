#include "process/pre_exec.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "process/pid_line.h"

namespace torchscan::process {

PreExec::PreExec(const SetUp& setup, const EarlyChildren& early, const std::vector<EarlyChildFds>& fds, int started_fd)
    : setup_(setup),
      fds_(fds),
      started_fd_(started_fd),
      early_pids_(fds.size(), 0),
      descriptors_failed_("torchscan launcher: cannot pass the " + early.name + "'s descriptors to the worker\n"),
      memory_{static_cast<rlim_t>(setup.memory_bytes), static_cast<rlim_t>(setup.memory_bytes)},
      open_files_{static_cast<rlim_t>(setup.open_files), static_cast<rlim_t>(setup.open_files)},
      file_bytes_{static_cast<rlim_t>(setup.file_bytes), static_cast<rlim_t>(setup.file_bytes)},
      cpu_seconds_(static_cast<rlim_t>(std::ceil(setup.cpu_time_s))),
      parent_(::getpid()) {
  cpu_time_ = {cpu_seconds_, cpu_seconds_ + 5};
  for (size_t i = 0; i < fds.size() && i < early.children.size(); ++i) {
    const EarlyChild& child = early.children[i];
    std::vector<char*> argv{const_cast<char*>(child.path.c_str())};
    for (const std::string& arg : child.args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    early_argv_.push_back(std::move(argv));
    exec_failed_messages_.push_back(child.exec_failed_message.c_str());
  }
  CPU_ZERO(&cpus_);
  for (int cpu : setup.cpus)
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &cpus_);
  // In a PID namespace of its own the child's getppid() is 0: a pidfd of this process tells.
  own_pid_namespace_ = setup.sandbox != nullptr && (setup.sandbox->clone_flags() & CLONE_NEWPID) != 0;
  if (own_pid_namespace_) parent_pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, ::getpid(), 0));
  sigemptyset(&no_signals_);  // a parent that blocks signals (for sigwait) must not pass that on
  default_action_.sa_handler = SIG_DFL;
}

PreExec::~PreExec() {
  if (parent_pidfd_ >= 0) ::close(parent_pidfd_);
}

bool PreExec::ParentGone() const {
  if (!own_pid_namespace_) return ::getppid() != parent_;
  if (parent_pidfd_ < 0) return false;  // a kernel before pidfds (5.3): the death signal alone
  pollfd ended{parent_pidfd_, POLLIN, 0};
  return ::poll(&ended, 1, 0) != 0;  // readable once it exited; an error counts as gone
}

void PreExec::Fail(const char* message) const {
  (void)!::write(STDERR_FILENO, message, std::strlen(message));
  ::_exit(setup_.failed_exit_code);
}

void PreExec::FailWithErrno(const char* message) const {
  const char* name = ::strerrorname_np(errno);  // a constant string: async-signal-safe
  for (const char* part : {message, ": ", name != nullptr ? name : "unknown error", "\n"})
    (void)!::write(STDERR_FILENO, part, std::strlen(part));
  ::_exit(setup_.failed_exit_code);
}

void PreExec::Apply() const {
  for (const auto& [from, to] : {std::pair{setup_.stdout_fd, STDOUT_FILENO}, std::pair{setup_.stderr_fd, STDERR_FILENO},
                                 std::pair{setup_.stdin_fd, STDIN_FILENO}})
    if (from >= 0 && ::dup2(from, to) < 0) Fail("torchscan launcher: cannot redirect stdin/stdout/stderr\n");
  if (setup_.new_session) {
    if (::setsid() < 0) Fail("torchscan launcher: setsid failed\n");
  } else if (setup_.own_process_group && ::setpgid(0, 0) != 0) {
    Fail("torchscan launcher: setpgid failed\n");
  }
  ::sigprocmask(SIG_SETMASK, &no_signals_, nullptr);
  ::sigaction(SIGPIPE, &default_action_, nullptr);
  if (!setup_.cpus.empty() && ::sched_setaffinity(0, sizeof(cpus_), &cpus_) != 0)
    Fail("torchscan launcher: sched_setaffinity failed for cpu_set\n");
  ApplyLimits();
  if (setup_.sandbox != nullptr)
    if (const char* failed = setup_.sandbox->Apply()) FailWithErrno(failed);
  // Here, not before the sandbox: in a user namespace of its own the child's uid means
  // nothing to the kernel until the sandbox mapped it.
  if (setup_.cgroup_procs_fd >= 0 && ::write(setup_.cgroup_procs_fd, "0", 1) != 1)
    FailWithErrno("torchscan launcher: cannot enter the worker's memory cgroup");
  SwitchUserAndConfine();
  if (setup_.parent_death_signal != 0) {
    if (::prctl(PR_SET_PDEATHSIG, setup_.parent_death_signal) != 0)
      Fail("torchscan launcher: prctl(PR_SET_PDEATHSIG) failed\n");
    // A parent that died before prctl took effect sent no signal: the child has a new parent.
    if (ParentGone()) Fail("torchscan launcher: its parent ended while it was starting\n");
  }
  StartEarlyChildren();
}

void PreExec::ApplyLimits() const {
  static constexpr rlimit kNoCore{0, 0};
  if (setup_.memory_bytes > 0 && ::setrlimit(RLIMIT_AS, &memory_) != 0)
    Fail("torchscan launcher: setrlimit(RLIMIT_AS) failed for worker_memory_bytes\n");
  if (setup_.no_core_dumps && ::setrlimit(RLIMIT_CORE, &kNoCore) != 0)
    Fail("torchscan launcher: setrlimit(RLIMIT_CORE) failed\n");
  if (cpu_seconds_ > 0 && ::setrlimit(RLIMIT_CPU, &cpu_time_) != 0)
    Fail("torchscan launcher: setrlimit(RLIMIT_CPU) failed for worker_cpu_time_s\n");
  if (setup_.open_files > 0 && ::setrlimit(RLIMIT_NOFILE, &open_files_) != 0)
    Fail("torchscan launcher: setrlimit(RLIMIT_NOFILE) failed for worker_open_files\n");
  if (setup_.file_bytes > 0 && ::setrlimit(RLIMIT_FSIZE, &file_bytes_) != 0)
    Fail("torchscan launcher: setrlimit(RLIMIT_FSIZE) failed\n");
}

void PreExec::SwitchUserAndConfine() const {
  const gid_t gid = static_cast<gid_t>(setup_.gid);
  const uid_t uid = static_cast<uid_t>(setup_.uid);
  if (setup_.gid >= 0 && (::syscall(SYS_setgroups, 1, &gid) != 0 || ::syscall(SYS_setresgid, gid, gid, gid) != 0))
    Fail("torchscan launcher: cannot switch to the worker_user's group (is torchscand root?)\n");
  if (setup_.uid >= 0 && ::syscall(SYS_setresuid, uid, uid, uid) != 0)
    Fail("torchscan launcher: cannot switch to worker_user (is torchscand root?)\n");
  if (setup_.no_new_privs && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    Fail("torchscan launcher: prctl(PR_SET_NO_NEW_PRIVS) failed\n");
}

// Each early child writes its pid line itself before its exec, so that the line comes before
// anything its program writes there (this process, resumed at that exec, could be outrun).
void PreExec::StartEarlyChildren() const {
  const pid_t self = ::getpid();
  for (size_t i = 0; i < early_argv_.size(); ++i) {
    const EarlyChildFds& c = fds_[i];
    const pid_t pid = ::vfork();
    if (pid == 0) {
      if (::dup2(c.child_fd, STDIN_FILENO) < 0 || ::dup2(c.child_fd, STDOUT_FILENO) < 0 ||
          ::dup2(c.err_fd, STDERR_FILENO) < 0)
        ::_exit(setup_.failed_exit_code);
      if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != self) ::_exit(setup_.failed_exit_code);
      WritePidLine(STDOUT_FILENO, ::getpid());
      ::execv(early_argv_[i][0], early_argv_[i].data());
      (void)!::write(STDERR_FILENO, exec_failed_messages_[i], std::strlen(exec_failed_messages_[i]));
      ::_exit(127);
    }
    early_pids_[i] = pid;  // here, not in the vfork child: it shares this memory
    if (pid > 0 && started_fd_ >= 0) (void)!::write(started_fd_, "+", 1);  // the parent counts these
    if (pid < 0) WritePidLine(c.child_fd, 0);
  }
  // Only now, so that no early child inherited them: the program keeps its ends past exec.
  for (size_t i = 0; i < early_argv_.size(); ++i)
    if (::fcntl(fds_[i].main_fd, F_SETFD, 0) != 0 || ::fcntl(fds_[i].err_fd, F_SETFD, 0) != 0)
      Fail(descriptors_failed_.c_str());
}

void PreExec::EndEarlyChildren() const {
  for (pid_t pid : early_pids_) {
    if (pid <= 0) continue;
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace torchscan::process
