// Runs one torchscan-worker process (Boost.Process) and reports how it ended. No gRPC.
//
// In the forked child, before exec: stdout goes to a pipe read here line by line, stderr to
// a file, stdin from /dev/null; the child gets its own process group (so a kill reaches the
// RSS children it starts; unless own_process_group is false), gets the CPU affinity (sched_setaffinity), RLIMIT_AS, RLIMIT_CPU,
// RLIMIT_NOFILE and RLIMIT_CORE 0 asked for, switches to the unprivileged uid/gid asked for
// (supplementary groups dropped), sets PR_SET_NO_NEW_PRIVS, dies with the launching thread
// (PR_SET_PDEATHSIG SIGKILL, set after the uid change, which would clear it; a launcher that
// was already gone by then is seen by getppid and the child exits), with no signal blocked
// and SIGPIPE at its default. If any of that fails the child writes why to its stderr and
// exits with kWorkerLaunchSetupFailed (120). So a worker never outlives torchscand, even
// after kill -9 of torchscand; its RSS children die with it in turn (passes/peak_rss.h).
//
// However the worker ends (by itself, crashed, killed here or from outside), RunWorker then
// kills what is left of its process group (SIGKILL) and returns only once none of it is
// left (at most 10 s more): the group's orphans are reaped here when this process is a
// child subreaper (PR_SET_CHILD_SUBREAPER, as torchscand is), else waited for until their
// new parent reaped them. So no RSS child outlives its job.
//
// A job's worker's stdin is /dev/null. A SpareWorker (below) is launched the same way (the
// same child set-up, in the same order) before its job, with a socket as its stdin through
// which it gets the job; from the handoff on it is supervised exactly as RunWorker's.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace torchscan::daemon {

struct WorkerLaunch {
  std::string path;               // the executable; required
  std::vector<std::string> args;  // its arguments (argv[1...])
  std::string stderr_path;        // file receiving its stderr (truncated); "" = /dev/null
  std::vector<int> cpus;          // CPU affinity; empty = inherit the daemon's
  int64_t memory_bytes = 0;       // RLIMIT_AS; 0 = no limit (inherit)
  double wall_time_s = 0;         // killed (SIGKILL) past this; 0 = no limit
  double cpu_time_s = 0;          // RLIMIT_CPU (SIGXCPU, then SIGKILL 5 s later); 0 = inherit
  int open_files = 0;             // RLIMIT_NOFILE; 0 = inherit
  int uid = -1;                   // run as this user (needs root); -1 = the launcher's
  int gid = -1;                   // and this group; -1 = the launcher's
  // true (default): the child gets a process group of its own, and once it ends that whole
  // group is killed and awaited (above). false: it stays in the launcher's process group, so
  // that whoever kills that group (torchscand, for the worker that launches it) reaches it
  // directly; then only the child itself is killed (when it did not exit by itself) and
  // reaped here, and what it started is left to the owner of the group. For a worker's own
  // fresh copies (a calibration's pairs, worker/calibration_job.h).
  bool own_process_group = true;
  // RSS children started with the worker (RunWorker only: a cold worker of a job with rss),
  // so that their LibTorch loads overlap the worker's instead of following it: after the set-up
  // above, before the worker's exec, its process forks (vfork) `rss_children` times
  // `rss_child_path --wait`; the worker gets "--rss-waiting SOCKET_FD:STDERR_FD" per child
  // after `args` (worker/worker_protocol.h). Each child is the worker's own: its process
  // group, user, limits and CPU set, it dies with the worker's main thread (PR_SET_PDEATHSIG)
  // and with the group, killed and awaited here. A child whose exec fails exits 127 (the
  // worker reports it as the RSS figure's reason); one that cannot be forked is pid 0 to the
  // worker. A worker whose own exec fails kills and reaps them before it exits (and is reaped
  // by RunWorker): none is left to torchscand, their subreaper. 0: none.
  std::string rss_child_path;
  int rss_children = 0;
};

// Lets another thread stop a running worker. Thread-safe.
class WorkerControl {
 public:
  WorkerControl();
  ~WorkerControl();
  WorkerControl(const WorkerControl&) = delete;
  WorkerControl& operator=(const WorkerControl&) = delete;

  // Asks RunWorker to kill the worker's process group with SIGKILL and report `reason`.
  // The first reason wins. Before launch: the worker is never started.
  void Kill(const std::string& reason);
  bool killed() const;
  std::string reason() const;
  int wake_fd() const { return event_fd_; }  // readable once Kill was called

 private:
  mutable std::mutex mu_;
  bool killed_ = false;
  std::string reason_;
  int event_fd_ = -1;
};

struct WorkerOutcome {
  enum class Kind {
    kExited,        // exited by itself; exit_code says how
    kSignaled,      // killed by a signal nobody here sent (crash, OOM killer ...)
    kTimedOut,      // past wall_time_s; killed here
    kKilled,        // WorkerControl::Kill
    kLaunchFailed,  // never ran (missing executable, no pipe ...)
  };
  Kind kind = Kind::kLaunchFailed;
  int exit_code = -1;        // kExited
  int signal = 0;            // kSignaled, and SIGKILL for kTimedOut / kKilled
  double wall_s = 0;         // launch to exit
  // One line for the job's error, e.g. "worker exited with status 3 (workload error):
  // <its last stderr line>", "worker killed by signal 11 (SIGSEGV)", "worker exceeded
  // job_wall_time_s 5 and was killed (SIGKILL)", the Kill reason, "cannot start worker ...".
  // Empty on success.
  std::string reason;
  std::string stderr_tail;   // the last ~4 KiB of its stderr
  bool ok() const { return kind == Kind::kExited && exit_code == 0; }
};

// Launches, calls `on_start(pid)` once running, `on_line(line)` for each stdout line (without
// the newline; lines over 64 KiB are split), waits for the end and returns the outcome.
// Blocks the calling thread; never throws. `control` may be null. With launch.rss_children > 0,
// `on_rss_children(started)` follows on_start: how many RSS children were forked (fewer than
// asked when a fork failed; those are pid 0 to the worker).
WorkerOutcome RunWorker(const WorkerLaunch& launch, const std::function<void(const std::string&)>& on_line,
                        WorkerControl* control = nullptr, const std::function<void(int pid)>& on_start = {},
                        const std::function<void(int started)>& on_rss_children = {});

// A worker started ahead of its job: a warm spare (`torchscan-worker --spare`,
// worker/worker_protocol.h) that loads, prints "ready" and waits, blocked on its stdin,
// until Run hands it a job. Launched with RunWorker's child set-up (CPU affinity, rlimits,
// uid/gid, own process group, PR_SET_PDEATHSIG of the launching thread, which must therefore
// outlive the spare: torchscand's executor thread). RLIMIT_CPU counts its loading, as a cold
// worker's, and nothing while it waits (a blocked read uses no CPU). launch.wall_time_s does
// not apply before the handoff: Run's `job` limit counts from the handoff. Not thread-safe:
// one thread (the executor) owns it.
class SpareWorker {
 public:
  enum class State { kLoading, kReady, kEnded };

  // Starts `launch` (its args hold --spare). nullptr with `reason` set when it did not start.
  static std::unique_ptr<SpareWorker> Start(const WorkerLaunch& launch, std::string* reason);
  // Kills its process group (SIGKILL) and reaps it, unless it ended already: an unused spare
  // leaves no process behind.
  ~SpareWorker();
  SpareWorker(const SpareWorker&) = delete;
  SpareWorker& operator=(const SpareWorker&) = delete;

  int pid() const;
  // Reads what it printed and returns its state: kReady once it said "ready", kEnded once it
  // died (it is then reaped: end_reason says how, as WorkerOutcome.reason would, with its
  // stderr's last line). Waits at most `timeout_ms` for it to become ready or end, less when
  // `control` is killed meanwhile (then kLoading).
  State Wait(int timeout_ms, const WorkerControl* control = nullptr);
  const std::string& end_reason() const { return end_reason_; }
  bool said_ready() const { return ready_; }  // it printed "ready" (and may have ended since)

  // Hands it its job (`handoff`: worker_protocol.h's FormatHandoff) and from then on behaves
  // as RunWorker(job, ...): on_start(pid) at once, lines, kill, the wall time job.wall_time_s
  // counted from now, the outcome (its stderr tail read from job.stderr_path, where the
  // spare sends its stderr once it has the job). Requires Wait() == kReady; once only. A spare
  // that died since then ends the job as a worker that died.
  WorkerOutcome Run(const WorkerLaunch& job, const std::string& handoff,
                    const std::function<void(const std::string&)>& on_line, WorkerControl* control,
                    const std::function<void(int pid)>& on_start = {});

 private:
  struct Process;
  explicit SpareWorker(const WorkerLaunch& launch);

  const WorkerLaunch launch_;  // the spare's own (its stderr file, its limits)
  std::unique_ptr<Process> process_;
  bool ready_ = false;
  bool ended_ = false;  // reaped, or handed to Run, which reaps it
  std::string end_reason_;
};

// "SIGKILL" for 9; "signal N" for unknown numbers.
std::string SignalName(int signal);

}  // namespace torchscan::daemon
