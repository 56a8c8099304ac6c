// What a forked child does before it executes its program (spawn.h): everything is prepared
// here, in the parent, so that after fork only system calls run (async-signal-safe; the
// parent may be multi-threaded).
//
// In this order: stdin/stdout/stderr from the descriptors given, a process group of its own
// (when asked), no signal blocked and SIGPIPE at its default, CPU affinity, RLIMIT_AS,
// RLIMIT_CORE 0 (when asked), RLIMIT_CPU (SIGXCPU at the limit, SIGKILL 5 s later),
// RLIMIT_NOFILE, RLIMIT_FSIZE, the sandbox (when given: sandbox.h), its cgroup (when given), the group then the user
// (supplementary groups dropped), PR_SET_NO_NEW_PRIVS (when asked), PR_SET_PDEATHSIG (SIGKILL unless
// SetUp says otherwise; none when it says 0) (after the user switch,
// which would clear it) with a check that the parent is still the one that forked it (a parent already gone sent no
// signal: getppid differs; in a PID namespace of its own, where getppid is 0, a pidfd of the parent tells), then the
// early children (below). The user and group are switched with the system calls themselves (the child of ForkInto may
// not use the C library's all-threads versions). If any step fails the child writes why to its stderr ("torchscan
// launcher: ...") and exits with SetUp.failed_exit_code.
//
// Early children: programs the child starts after its set-up and before its own exec, so that
// their start-up overlaps its program's (torchscan-worker's RSS children). Each is forked with
// vfork (no fork handlers run in this copy of a multi-threaded parent), gets a socket as its
// stdin and stdout and an anonymous file (memfd) as its stderr, dies with the child
// (PR_SET_PDEATHSIG, checked with getppid as above: it exits with failed_exit_code when either
// fails), writes its pid line (pid_line.h) on its socket and executes its program; when that
// exec fails it writes its exec_failed_message to its stderr and exits 127. One whose fork
// fails gets "0" as its pid line from the child. The child keeps, past its own exec, its end
// of each socket and each stderr file; nothing else of theirs is inherited either way. When the
// child's own exec fails (spawn.cc), EndEarlyChildren kills and reaps those it started, so
// that none is left to the parent's subreaper.
#pragma once

#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "process/sandbox.h"

namespace torchscan::process {

struct SetUp {
  int stdin_fd = -1;               // becomes the child's stdin; -1 keeps what it inherited
  int stdout_fd = -1;              // its stdout; -1 keeps what it inherited
  int stderr_fd = -1;              // its stderr; -1 keeps what it inherited
  bool own_process_group = false;  // setpgid(0, 0): its pid is its group's id
  bool new_session = false;        // setsid() instead: its own session and group, no terminal
  // Sent to it when the process that started it ends (PR_SET_PDEATHSIG); 0: it outlives its
  // parent (a resident daemon started by a client).
  int parent_death_signal = SIGKILL;
  std::vector<int> cpus;       // CPU affinity; empty = inherit
  int64_t memory_bytes = 0;    // RLIMIT_AS; 0 = inherit
  double cpu_time_s = 0;       // RLIMIT_CPU, rounded up to whole seconds; 0 = inherit
  int open_files = 0;          // RLIMIT_NOFILE; 0 = inherit
  int64_t file_bytes = 0;      // RLIMIT_FSIZE: the largest file it may write; 0 = inherit
  int uid = -1;                // run as this user (needs root); -1 = the parent's
  int gid = -1;                // and this group; -1 = the parent's
  bool no_core_dumps = false;  // RLIMIT_CORE 0
  bool no_new_privs = false;   // PR_SET_NO_NEW_PRIVS
  // Entered after the limits and before the user switch (sandbox.h); nullptr: none. Must
  // outlive the PreExec.
  const SandboxPlan* sandbox = nullptr;
  // A cgroup's cgroup.procs open for writing (memory_cgroup.h): the child enters it ("0") after
  // the sandbox, before the user switch; -1: it stays in the parent's cgroup.
  int cgroup_procs_fd = -1;
  int failed_exit_code = 125;  // the child's exit code when a step fails
};

struct EarlyChild {
  std::string path;                 // the program (no PATH search)
  std::vector<std::string> args;    // argv[1...]
  std::string exec_failed_message;  // written to its stderr when its exec fails
};

struct EarlyChildren {
  std::string name;  // what they are, for error texts: "RSS children"
  std::vector<EarlyChild> children;
  // The words added to the main program's arguments for each child, from the descriptors the
  // program keeps: its end of the child's socket and the child's stderr file. Required when
  // `children` is not empty.
  std::function<std::vector<std::string>(int socket_fd, int stderr_fd)> args_for;
};

// One early child's descriptors, opened by the parent, all close-on-exec there.
struct EarlyChildFds {
  int main_fd = -1;   // the main program's end of the socket
  int child_fd = -1;  // the early child's end: its stdin and stdout
  int err_fd = -1;    // the anonymous file: its stderr
};

class PreExec {
 public:
  // `early` and `fds` pair up by index and must outlive this object. `started_fd`: the write
  // end of a pipe that gets one byte per early child forked (-1: none).
  PreExec(const SetUp& setup, const EarlyChildren& early, const std::vector<EarlyChildFds>& fds, int started_fd);
  ~PreExec();
  PreExec(const PreExec&) = delete;
  PreExec& operator=(const PreExec&) = delete;

  // In the forked child: returns once all of it is applied; exits on any failure (above).
  void Apply() const;
  // In the forked child whose exec failed: kills and reaps the early children it started.
  void EndEarlyChildren() const;

 private:
  void Fail(const char* message) const;
  void FailWithErrno(const char* message) const;  // "<message>: EPERM\n" (errno's name)
  void ApplyLimits() const;
  void SwitchUserAndConfine() const;
  void StartEarlyChildren() const;
  bool ParentGone() const;  // the parent that made this object ended (no death signal came)

  const SetUp& setup_;
  const std::vector<EarlyChildFds>& fds_;
  const int started_fd_;
  mutable std::vector<pid_t> early_pids_;          // sized here; the child's copy records pids
  std::vector<std::vector<char*>> early_argv_;     // pointing into `early`
  std::vector<const char*> exec_failed_messages_;  // pointing into `early`
  std::string descriptors_failed_;                 // the message when the fds cannot be passed
  cpu_set_t cpus_;
  rlimit memory_;
  rlimit cpu_time_;
  rlimit open_files_;
  rlimit file_bytes_;
  rlim_t cpu_seconds_ = 0;
  pid_t parent_ = 0;
  bool own_pid_namespace_ = false;  // the child is made in a PID namespace of its own
  int parent_pidfd_ = -1;           // then: the parent, polled for its end
  sigset_t no_signals_;
  struct sigaction default_action_ {};
};

}  // namespace torchscan::process
