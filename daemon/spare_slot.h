// A device lane's warm spare worker (worker_launcher.h: SpareWorker; executor.h keeps one per lane): a torchscan-worker
// started with a job's launch settings (job_runner.h: WorkerLaunchOf with --spare), loaded
// and waiting, that the next job takes instead of starting a cold worker. A spare is used
// once: every job still runs in a fresh process.
//
// When: a lane starts its spare only between its jobs (Refill: at the daemon's start, after
// each job, and while idle to replace one that died), never while a job holds its device, and
// a CPU job waits for other lanes' loading spares (executor.h), so that LibTorch's loading
// never competes with a CPU job's timing. A job that arrives while the spare
// still loads waits for it (Take): no slower than a cold start.
//
// Failure cases: a spare that died or could not start is reported by Unavailable (the job
// then takes a cold worker and its record says why) and replaced: one that died after it
// was ready, at the next Refill; one that ended before it was ready (its launch fails:
// bad worker_path, limits that kill it while loading ...) only after the next job, so that a
// broken launch is not retried in a loop. The job never fails because of a spare.
//
// Every job setting is applied after the handoff exactly as in a cold worker (threads), and
// every launch setting (CPU set, rlimits, user, environment: a GPU lane's pin) is the lane's,
// the same for the spare and a cold worker of that lane; a job whose devices are not its
// lane's alone (a compare across two GPUs) takes a cold worker (executor.h). What is
// fixed while the libraries load is therefore the same too: OpenBLAS starts its own thread
// pool in its constructor, sized from the CPUs the process may use and OPENBLAS_NUM_THREADS /
// OMP_NUM_THREADS; LibTorch starts none before the job (an idle spare on one CPU has one
// thread). A per-job CPU set, user or environment, if one is ever added, must take a cold
// worker (a new Unavailable reason).
//
// Thread-safety: the executor thread calls everything (the spare's PR_SET_PDEATHSIG is that
// thread's), except pid() and rss_bytes(), which any thread may call.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "daemon/job_runner.h"
#include "daemon/worker_launcher.h"

namespace torchscan::daemon {

class SpareSlot {
 public:
  // `off` not empty: never starts one, and says why ("no_spare_worker": DaemonConfig's). The
  // spare's stderr goes to `stderr_path` until it has a job (then to the job's worker.stderr).
  // With options.sandbox, each spare runs sandboxed with `job_folder` (recreated empty, given
  // to the worker's user) as its one writable folder: WorkerLaunch.sandbox_folder.
  SpareSlot(const JobRunOptions& options, const std::string& off, std::string stderr_path, std::string job_folder);
  ~SpareSlot();  // Stop()

  // Between jobs: starts a spare when there is none, replacing one that died (see above);
  // `after_job`: a job has just ended (a spare that failed before it was ready is retried).
  // `early_children`: children the spare prepares beside it for its coming job
  // (worker_protocol.h's SpareArgs; the executor passes what the last job wanted: a queue
  // tends to repeat its kind of job, and children nobody needs cost a LibTorch load each,
  // killed unused).
  void Refill(bool after_job, int early_children = 0);
  // "" when a spare is there (ready or loading), else why the next job gets a cold worker,
  // e.g. "spare worker off (no_spare_worker)", "the spare worker ended while idle: worker
  // killed by signal 9 (SIGKILL)".
  std::string Unavailable();
  // The spare for a job, once ready: waits while it loads, at most `wait_limit_s` (0: no
  // limit) and until `control` is killed. nullptr with `why_not` set when it died, did not
  // become ready in time (it is then killed) or `control` was killed; the slot is empty
  // afterwards either way.
  std::unique_ptr<SpareWorker> Take(const WorkerControl* control, double wait_limit_s, std::string* why_not);
  // Kills the spare and reaps it (its whole process group): nothing is left behind.
  void Stop();

  int pid() const { return pid_.load(); }       // 0 when there is none
  bool ready() const { return ready_.load(); }  // it said "ready" when the executor last looked
  int64_t rss_bytes() const;                    // the spare's resident memory (/proc); 0 when none

 private:
  void Drop(const std::string& why);  // forgets the spare (killed), remembering why
  void ForgetIfEnded();               // drops a spare that has ended, logging how

  // Recreates job_folder_ empty for the next spare and puts its sandbox on `launch`.
  absl::Status PrepareSandbox(WorkerLaunch* launch) const;

  const WorkerLaunch launch_;  // Refill adds SpareArgs
  const std::shared_ptr<const JobSandbox> sandbox_;
  const std::string job_folder_;
  const bool enabled_;
  std::unique_ptr<SpareWorker> spare_;
  std::string why_none_;         // why there is no spare (when spare_ is null)
  bool failed_loading_ = false;  // the last one ended (or failed to start) before it was ready
  std::atomic<int> pid_{0};
  std::atomic<bool> ready_{false};
};

}  // namespace torchscan::daemon
