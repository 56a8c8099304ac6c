// Runs one torchscan-worker process and reports how it ended: the worker's launch settings
// (WorkerLaunch) on top of process/ (spawn with its set-up, supervision, kill and reaping)
// and worker/worker_outcome.h (the worker's set-up and how its end reads). No gRPC.
//
// In the forked child, before exec (process/pre_exec.h): stdout goes to a pipe read here line
// by line, stderr to a file, stdin from /dev/null; the child gets its own process group (so a
// kill reaches what it starts; unless own_process_group is false), the CPU affinity, RLIMIT_AS,
// RLIMIT_CPU, RLIMIT_NOFILE and RLIMIT_CORE 0 asked for, switches to the unprivileged uid/gid
// asked for (supplementary groups dropped), sets PR_SET_NO_NEW_PRIVS, dies with the launching
// thread (PR_SET_PDEATHSIG SIGKILL, set after the uid change, which would clear it; a launcher
// that was already gone by then is seen by getppid and the child exits), with no signal
// blocked and SIGPIPE at its default. If any of that fails the child writes why to its stderr
// and exits with kWorkerLaunchSetupFailed (120). So a worker never outlives torchscand, even
// after kill -9 of torchscand; the children it starts die with it in turn.
//
// However the worker ends (by itself, crashed, killed here or from outside), RunWorker then
// kills what is left of its process group (SIGKILL) and returns only once none of it is
// left (at most 10 s more): the group's orphans are reaped here when this process is a
// child subreaper (PR_SET_CHILD_SUBREAPER, as torchscand is), else waited for until their
// new parent reaped them (process/supervise.h). So nothing a worker started outlives its job.
//
// A job's worker's stdin is /dev/null. A SpareWorker (below) is launched the same way (the
// same child set-up, in the same order) before its job, with a socket as its stdin through
// which it gets the job; from the handoff on it is supervised exactly as RunWorker's.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "process/control.h"
#include "process/fd.h"
#include "process/memory_cgroup.h"
#include "process/output_pump.h"
#include "process/pre_exec.h"
#include "process/run.h"
#include "worker/worker_outcome.h"

namespace torchscan::daemon {

struct WorkerLaunch {
  std::string path;               // the executable; required
  std::vector<std::string> args;  // its arguments (argv[1...])
  std::string stderr_path;        // file receiving its stderr (truncated); "" = /dev/null
  std::vector<int> cpus;          // CPU affinity; empty = inherit the daemon's
  // "NAME=value" each, set over the daemon's environment (a GPU job's pin: devices/gpu_pin.h).
  std::vector<std::string> environment;
  int64_t memory_bytes = 0;  // RLIMIT_AS; 0 = no limit (inherit)
  // Set: each launch runs in a memory cgroup of its own made there, holding at most
  // cgroup_memory_bytes (process/memory_cgroup.h); entered before the exec, removed once its
  // processes are gone. A worker its OOM killer ended says so in its outcome.
  std::shared_ptr<const process::MemoryCgroups> memory_cgroups;
  int64_t cgroup_memory_bytes = 0;
  double wall_time_s = 0;  // killed (SIGKILL) past this; 0 = no limit
  double cpu_time_s = 0;   // RLIMIT_CPU (SIGXCPU, then SIGKILL 5 s later); 0 = inherit
  int open_files = 0;      // RLIMIT_NOFILE; 0 = inherit
  int64_t file_bytes = 0;  // RLIMIT_FSIZE; 0 = inherit
  int uid = -1;            // run as this user (needs root); -1 = the launcher's
  int gid = -1;            // and this group; -1 = the launcher's
  // true (default): the child gets a process group of its own, and once it ends that whole
  // group is killed and awaited (above). false: it stays in the launcher's process group; then
  // only the child itself is killed (when it did not exit by itself) and reaped here.
  bool own_process_group = true;
  // Children started with the worker (RunWorker only), after the set-up above and before the
  // worker's exec (process/pre_exec.h): each is the worker's own (its process group, user,
  // limits and CPU set; it dies with the worker's main thread and with the group, killed and
  // awaited here). A worker whose own exec fails kills and reaps them before it exits. What
  // they are is the caller's (a cold worker's RSS children: worker_protocol.h
  // WaitingRssChildren). None by default.
  process::EarlyChildren early_children;
  // The sandbox the worker (and its early children) runs in (process/sandbox.h); none by default.
  std::shared_ptr<const process::SandboxPlan> sandbox;
  // With a sandbox made before its job was known (a spare's): the one writable folder it
  // shows, where that job's files are put for it. Empty otherwise.
  std::string sandbox_folder;
};

// Lets another thread stop a running worker (process/control.h): Kill(reason) kills its
// process group with SIGKILL and RunWorker reports `reason`; before launch it never starts.
using WorkerControl = process::Control;

// How a worker is run: `launch`'s settings on worker_outcome.h's set-up.
process::RunOptions WorkerRunOptionsOf(const WorkerLaunch& launch, WorkerControl* control);

// Launches, calls `on_start(pid)` once running, `on_line(line)` for each stdout line (without
// the newline; lines over 64 KiB are split), waits for the end and returns the outcome.
// Blocks the calling thread; never throws. `control` may be null. With early children,
// `on_early_children(started)` follows on_start: how many were forked (fewer than asked
// when a fork failed; those are pid 0 to the worker).
worker::WorkerOutcome RunWorker(const WorkerLaunch& launch, const std::function<void(const std::string&)>& on_line,
                                WorkerControl* control = nullptr, const std::function<void(int pid)>& on_start = {},
                                const std::function<void(int started)>& on_early_children = {});

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

  int pid() const { return pid_; }
  const WorkerLaunch& launch() const { return launch_; }
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
  worker::WorkerOutcome Run(const WorkerLaunch& job, const std::string& handoff,
                            const std::function<void(const std::string&)>& on_line, WorkerControl* control,
                            const std::function<void(int pid)>& on_start = {});

 private:
  explicit SpareWorker(const WorkerLaunch& launch) : launch_(launch) {}
  void EndNow();  // reaps it once it has ended by itself and says how

  const WorkerLaunch launch_;  // the spare's own (its stderr file, its limits)
  int pid_ = 0;
  std::unique_ptr<process::OutputPump> pump_;
  process::Fd job_fd_;  // the socket's end written here: its stdin
  bool ready_ = false;
  bool ended_ = false;                             // reaped, or handed to Run, which reaps it
  std::unique_ptr<process::WorkerCgroup> cgroup_;  // removed after the reaping (a member: destroyed last)
  std::string end_reason_;
};

}  // namespace torchscan::daemon
