// Runs one job start to end, without gRPC and without the daemon's bookkeeping: writes its
// spec file, launches a fresh worker (worker_launcher.h) with the daemon's affinity and
// limits or hands the job to the warm spare launched the same way (spare_slot.h), turns the worker's progress lines
// (worker_protocol.h) into callbacks and reads the result it wrote.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "daemon/job_sandbox.h"
#include "daemon/job_store.h"
#include "daemon/worker_launcher.h"
#include "daemon/worker_memory.h"
#include "proto/service.pb.h"
#include "worker/worker_protocol.h"

namespace torchscan::daemon {

// How workers are launched; from the daemon configuration.
// What isolates each job's worker, opened once at the daemon's start: its sandbox (nullptr:
// none) and how its memory is bounded (worker_memory.h).
struct JobIsolation {
  std::shared_ptr<const JobSandbox> sandbox;
  WorkerMemory memory;
};

// The largest file a job's worker may write (RLIMIT_FSIZE: results, stderr, /tmp files); a
// write past it fails (EFBIG: the worker ignores SIGXFSZ). Results are some MiB at most.
inline constexpr int64_t kWorkerFileBytes = int64_t{1} << 30;
// What the daemon keeps of a job's worker.stderr (a module's prints go there): its last bytes.
inline constexpr int64_t kKeptStderrBytes = int64_t{1} << 20;

struct JobRunOptions {
  worker::HelperPrograms helpers;  // passed on (worker_protocol.h's HelperProgramArgs)
  // Each job's worker runs in this sandbox, its own folder writable; nullptr: none.
  std::shared_ptr<const JobSandbox> sandbox;
  // torchscan-worker (path, required) with its affinity (empty = the daemon's), RLIMIT_AS,
  // wall time, RLIMIT_CPU and RLIMIT_NOFILE (0 = none or inherit), and its user (uid/gid,
  // -1 = the daemon's; the job's folder is then given to it: it writes its result there).
  // No args, no stderr file: WorkerLaunchOf adds those.
  WorkerLaunch worker;
};

// Config must be valid; worker_user (set only when torchscand is root) becomes uid/gid.
JobRunOptions RunOptionsOf(const v1::DaemonConfig& config, const JobIsolation& isolation = {});

// The workers' memory bound (OpenWorkerMemory, from the machine's RAM) and, for a
// configuration whose sandbox is "namespaces", the jobs' sandbox, tried once now (a kernel that
// refuses it stops the start rather than every job; FailedPrecondition naming sandbox and the
// fixes); no sandbox for "off". JobSandbox::Create's errors.
absl::StatusOr<JobIsolation> OpenJobIsolation(const v1::DaemonConfig& config);

// How a worker is launched with `options`: `args` (then HelperProgramArgs), its stderr to
// `stderr_path`, the affinity, limits and user of `options`. A job's worker and the warm spare
// (args {"--spare"}) differ only in these two.
WorkerLaunch WorkerLaunchOf(const JobRunOptions& options, std::vector<std::string> args, std::string stderr_path);

// Progress, called on the running thread. Each may be empty.
struct JobRunCallbacks {
  std::function<void(int pid)> on_start;
  std::function<void(const std::string& phase)> on_phase;
  std::function<void(int64_t blocks_done)> on_blocks;
  // Right after on_start, when a fresh worker was launched with early children: `count` > 0
  // of them were forked (one whose fork failed is not counted).
  std::function<void(int count)> on_early_children;
};

struct JobRunOutcome {
  // succeeded, or failed; `killed` marks a WorkerControl::Kill (the caller decides whether
  // that is cancelled or interrupted).
  v1::Job::State state = v1::Job::failed;
  bool killed = false;
  std::string error;     // why it failed or was killed; empty on success
  v1::JobResult result;  // on success
  // Killed by a signal nobody here sent before its first progress line: for a warm spare,
  // one that died (kill -9, the OOM killer) just as it was handed the job, which it never
  // began; the caller may run the job again on a cold worker.
  bool died_before_first_line = false;
};

// Runs job `id` in a worker on the job folder's spec file, which the daemon wrote at
// submission (uploaded files included); when it is missing (a job queued by an older daemon)
// `spec` is written there first. Never throws. Failures (spec not writable, worker failure
// of any kind, exit 0 without a valid result.json) come back as state failed with the reason
// in `error`; a result the worker could not write adds the state_dir's free bytes.
// `spare`, when given (ready: SpareWorker::Wait), runs the job instead of a fresh worker
// (launched with the same `options`); it is used up either way (the children it prepared
// serve the job). A fresh worker is launched together with the children its job wants
// (WorkerLaunch.early_children: worker_protocol.h's EarlyChildrenOf), so that their LibTorch
// loads overlap its own instead of following it.
JobRunOutcome RunJob(JobStore& store, const std::string& id, const v1::JobSpec& spec, const JobRunOptions& options,
                     WorkerControl* control, const JobRunCallbacks& callbacks, SpareWorker* spare = nullptr);

}  // namespace torchscan::daemon
