// How a torchscan-worker process is launched and how its end reads, for everyone who starts
// one: torchscand (daemon/worker_launcher.h, a job's worker and the warm spare) and the
// worker itself (worker/fresh_comparison.h, a calibration's pairs). Built on process/; no
// gRPC, no LibTorch.
//
// The set-up of every worker (WorkerSpawnOptions): stdin /dev/null, stdout lines read by the
// launcher, its own process group, RLIMIT_CORE 0, PR_SET_NO_NEW_PRIVS, death with the
// launching thread (PR_SET_PDEATHSIG), and kWorkerLaunchSetupFailed (120) when a set-up step
// fails (process/pre_exec.h).
#pragma once

#include <string>
#include <vector>

#include "process/run.h"

// (Namespace torchscan::daemon kept from when the worker lived in daemon/.)
namespace torchscan::worker {

struct WorkerOutcome {
  enum class Kind {
    kExited,        // exited by itself; exit_code says how
    kSignaled,      // killed by a signal nobody here sent (crash, OOM killer ...)
    kTimedOut,      // past wall_time_s; killed here
    kKilled,        // process::Control::Kill
    kLaunchFailed,  // never ran (missing executable, no pipe ...)
  };
  Kind kind = Kind::kLaunchFailed;
  int exit_code = -1;  // kExited
  int signal = 0;      // kSignaled, and SIGKILL for kTimedOut / kKilled
  double wall_s = 0;   // launch to exit
  // One line for the job's error, e.g. "worker exited with status 3 (workload error):
  // <its last stderr line>", "worker killed by signal 11 (SIGSEGV)", "worker exceeded
  // job_wall_time_s 5 and was killed (SIGKILL)", the Kill reason, "cannot start worker ...".
  // Empty on success.
  std::string reason;
  std::string stderr_tail;  // the last ~4 KiB of its stderr
  bool ok() const { return kind == Kind::kExited && exit_code == 0; }
};

// The options of a worker `path` with `args` (see above); the caller adds its limits, user,
// CPU set, stderr file, wall time and control.
process::RunOptions WorkerRunOptions(const std::string& path, std::vector<std::string> args);

// The outcome of `run` (process::Run, or a spare's supervision from its handoff) of a worker
// launched with `options`: its stderr tail is read from options.stderr_path, the Kill reason
// from options.control. The reasons name options' limits: "; worker_memory_bytes is N (it
// may have been exceeded)" after an exit with kWorkerOutOfMemory or any signal when a memory
// limit was set, "; worker_cpu_time_s is N (...)" after SIGXCPU, or SIGKILL with a CPU limit.
WorkerOutcome WorkerOutcomeOf(const process::RunResult& run, const process::RunOptions& options);

// The reason of a worker that ended with raw wait status `status` (as WorkerOutcome.reason
// says), with its stderr tail, launched with `options`; "" for exit 0.
std::string DescribeWorkerStatus(int status, const std::string& stderr_tail, const process::RunOptions& options,
                                 WorkerOutcome* out = nullptr);

// The last ~4 KiB of file `path`, without surrounding white space; "" when it cannot be read.
std::string ReadStderrTail(const std::string& path);

}  // namespace torchscan::worker
