// torchscand's executor: the exclusive queue (job_queue.h) and the one thread that runs its
// jobs one at a time, each in a fresh worker (job_runner.h): the warm spare when there is one
// (spare_slot.h; started between jobs, never beside one), else a cold worker, whose reason the
// job's record says. It records each job's progress and end in JobRecords (job_records.h):
// running, its phases and blocks, then succeeded (with its result completed), failed, or, when
// its worker was killed, cancelled (CancelRunning) or interrupted (Stop).
//
// Failure cases: a job never fails because of the spare (one that died before it began the
// job is replaced by a cold worker); a worker's failure fails its job only.
//
// Thread-safety: the queue and the running job are guarded by the records' mutex
// (JobRecords::mu()), so that taking the next job and marking it running is one step.
// Methods marked ABSL_EXCLUSIVE_LOCKS_REQUIRED assert it at run time. Start and Stop take it
// themselves; spare() is usable from any thread for pid(), ready() and rss_bytes().
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "daemon/job_queue.h"
#include "daemon/job_records.h"
#include "daemon/job_runner.h"
#include "daemon/spare_slot.h"
#include "daemon/worker_launcher.h"
#include "proto/service.pb.h"

namespace torchscan::daemon {

class Executor {
 public:
  // Runs jobs with `config`'s launch settings and limits (valid: config.h); records them in
  // `records`, which must outlive it. Nothing runs before Start.
  // `sandbox`: every job's worker (the spare too) runs in it; nullptr: none.
  Executor(const v1::DaemonConfig& config, JobRecords* records, const JobIsolation& isolation = {});
  ~Executor();  // Stop("the daemon was stopped")
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Starts the executor thread (once; not after Stop).
  void Start() ABSL_LOCKS_EXCLUDED(records_->mu());
  // Stops taking jobs, kills a running worker (its job is recorded interrupted with
  // `reason`), wakes the records' waiters and joins the thread. Queued jobs stay queued.
  // Idempotent.
  void Stop(const std::string& reason) ABSL_LOCKS_EXCLUDED(records_->mu());

  // Queues job `id` of `user` and wakes the thread (JobQueue::Push's errors: the queue or the
  // user's share of it is full). Jobs run fair between users (job_queue.h).
  absl::Status Enqueue(const std::string& id, const std::string& user) ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // Queues a job restored at start-up (no limits).
  void Restore(const std::string& id, const std::string& user) ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // Takes job `id` out of the queue (cancelled, or refused after all); false when not queued.
  bool Dequeue(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // 1 for the next job ...; 0 when `id` is not queued.
  int Position(const std::string& id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  size_t queued() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // The running job's id; "" when none.
  std::string running_id() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // Stop began: no new jobs.
  bool stopping() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // When `id` is the running job: kills its worker (once) so that it is recorded cancelled
  // by `by`, and returns true. False when `id` is not running here.
  bool CancelRunning(const std::string& id, const std::string& by) ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());

  const SpareSlot& spare() const { return spare_; }
  // Asserts (at run time, and to clang's thread-safety analysis) that the caller holds the
  // records' mutex: for callers that took it as their JobRecords::mu(), which clang cannot
  // see is this same mutex.
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK(records_->mu()) { records_->mu().AssertHeld(); }

 private:
  void Loop();
  // Takes the next queued job and marks it running (on the warm spare unless `no_spare` says
  // why not). False when the queue is empty; `id` and `spec` are the job's.
  bool TakeNext(const std::string& no_spare, const std::shared_ptr<WorkerControl>& control, std::string* id,
                v1::JobSpec* spec) ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // Runs the job TakeNext marked running (on the warm spare when its record's worker is
  // "warm spare" and the spare becomes ready, else on a cold worker) and records how it ended.
  void RunOne(const std::string& id, const v1::JobSpec& spec, WorkerControl* control)
      ABSL_LOCKS_EXCLUDED(records_->mu());
  // The callbacks that record a running job's progress; `spare` (may hold null): its worker.
  JobRunCallbacks ProgressOf(const std::string& id, const std::unique_ptr<SpareWorker>& spare);
  // Records how job `id` ended and clears the running job.
  void Finish(const std::string& id, JobRunOutcome& outcome) ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // The job gets a cold worker after all (the spare it was to have is gone): its record's
  // worker says why, and a new "worker start" phase begins.
  void FallBackToColdWorker(const std::string& id, const std::string& why) ABSL_LOCKS_EXCLUDED(records_->mu());

  JobRecords* const records_;
  const JobRunOptions run_options_;
  const double job_wall_time_s_;
  SpareSlot spare_;  // the executor thread's (pid and RSS: any thread)

  absl::CondVar work_;  // a job was queued, or stopping
  JobQueue queue_ ABSL_GUARDED_BY(records_->mu());
  std::string running_id_ ABSL_GUARDED_BY(records_->mu());
  std::shared_ptr<WorkerControl> running_control_ ABSL_GUARDED_BY(records_->mu());
  // The kill was a cancel (else an interruption).
  bool running_cancelled_ ABSL_GUARDED_BY(records_->mu()) = false;
  bool stopping_ ABSL_GUARDED_BY(records_->mu()) = false;
  std::thread thread_;  // started and joined under no lock; Start and Stop only
};

}  // namespace torchscan::daemon
