// torchscand's local backend (job_backend.h): the queue (device_scheduler.h) and a lane per
// offered device: a thread that runs the jobs whose home is that device one at a time, each in
// a fresh worker: the lane's warm spare when there is one (spare_slot.h), else a cold worker,
// whose reason the job's record says. Jobs on distinct GPUs run at once; a CPU job holds every
// device, so it runs alone as it always did. A GPU lane's workers see only its GPU and run on
// the CPUs near it (pinned_launch.h). It records each job's progress and end in JobRecords
// (job_records.h): running, its phases and blocks, then succeeded (with its result
// completed), failed, or, when its worker was killed, cancelled (Cancel) or interrupted (Stop).
//
// Spares: each lane keeps one, launched as its jobs are (pinned to its GPU), refilled between
// its jobs and never while a CPU job holds its device; a CPU job's worker starts once no other
// lane's spare is still loading, so its timing competes with nothing this daemon starts. A job
// whose devices differ from its lane's (a compare across two GPUs) takes a cold worker of its
// own. Failure cases: a job never fails because of a spare (one that died
// before it began the job is replaced by a cold worker); a worker's failure fails its job only.
//
// Thread-safety: the queue and the lanes' running jobs are guarded by the records' mutex
// (JobRecords::mu()), so that taking the next job and marking it running is one step.
#pragma once

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "daemon/device_scheduler.h"
#include "daemon/job_backend.h"
#include "daemon/job_records.h"
#include "daemon/job_runner.h"
#include "daemon/spare_slot.h"
#include "daemon/worker_launcher.h"
#include "proto/service.pb.h"

namespace torchscan::daemon {

class Executor final : public JobBackend {
 public:
  // Runs jobs on config.devices with `config`'s launch settings and limits (valid: config.h),
  // every worker (the spares too) isolated by `isolation`; records them in `records`, which
  // must outlive it. Nothing runs before Start.
  Executor(const v1::DaemonConfig& config, JobRecords* records, const JobIsolation& isolation = {});
  ~Executor() override;  // Stop("the daemon was stopped")
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  void Restore(const v1::Job& job) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // Starts the lanes' threads (once; not after Stop).
  void Start() override ABSL_LOCKS_EXCLUDED(records_->mu());
  void Stop(const std::string& reason) override ABSL_LOCKS_EXCLUDED(records_->mu());
  bool stopping() const override ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // Queues the job on the devices it claims and wakes the lanes. InvalidArgument for a job
  // naming a Slurm node (spec.node); DeviceScheduler::Push's errors (the queue or the user's
  // share of it is full). Jobs run fair between users.
  absl::Status Accept(const v1::Job& job) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  void Withdraw(const std::string& id) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  absl::Status Cancel(const std::string& id, const std::string& by) override ABSL_LOCKS_EXCLUDED(records_->mu());
  int Position(const std::string& id) const override ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  int queued() const override ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  void Describe(v1::DaemonInfo* info) const override ABSL_LOCKS_EXCLUDED(records_->mu());

 private:
  struct Lane {
    std::string device;
    JobRunOptions options;             // its workers' launch (a GPU's: pinned to it)
    std::unique_ptr<SpareSlot> spare;  // its thread's (pid and RSS: any thread)
    std::thread thread;                // started and joined under no lock; Start and Stop only
    // Guarded by the records' mutex:
    std::string running_id;
    std::shared_ptr<WorkerControl> control;
    bool cancelled = false;  // the kill was a cancel (else an interruption)
  };

  void Loop(Lane& lane);
  // Lets `lane` refill its spare now: no CPU job holds its device (a spare loading beside a
  // CPU job's timing would disturb it).
  bool MaySpare(const Lane& lane) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // Takes the next job `lane` may run (DeviceScheduler::Start) and marks it running (on its
  // warm spare unless `no_spare` says why not, or the job's devices are not the lane's).
  // False when there is none; `id`, `spec` and `options` (its launch) are the job's.
  bool TakeNext(Lane& lane, const std::string& no_spare, const std::shared_ptr<WorkerControl>& control, std::string* id,
                v1::JobSpec* spec, JobRunOptions* options) ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // Runs the job TakeNext marked running and records how it ended.
  void RunOne(Lane& lane, const std::string& id, const v1::JobSpec& spec, const JobRunOptions& options,
              WorkerControl* control) ABSL_LOCKS_EXCLUDED(records_->mu());
  // Before a CPU job's worker starts: waits (at most 60 s, or until `control` is killed) until
  // no other lane's spare is loading, so that none loads beside the job's timing (no new one
  // starts: the job holds every device).
  void WaitForLoadingSpares(const Lane& lane, const WorkerControl* control) ABSL_LOCKS_EXCLUDED(records_->mu());
  // The callbacks that record a running job's progress; `spare` (may hold null): its worker.
  JobRunCallbacks ProgressOf(const std::string& id, const std::unique_ptr<SpareWorker>& spare);
  // Records how job `id` ended and frees its lane and devices.
  void Finish(Lane& lane, const std::string& id, JobRunOutcome& outcome) ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // The job gets a cold worker after all: its record's worker says why, and a new "worker
  // start" phase begins.
  void FallBackToColdWorker(const std::string& id, const std::string& why) ABSL_LOCKS_EXCLUDED(records_->mu());
  // The lane running `id`; nullptr when none.
  Lane* RunningLane(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());

  JobRecords* const records_;
  const JobRunOptions run_options_;  // the daemon's launch: a CPU job's
  const double job_wall_time_s_;
  const std::string worker_memory_;           // DaemonInfo.worker_memory
  const std::vector<int> available_cpus_;     // torchscand's (pinned launches stay within them)
  std::vector<std::unique_ptr<Lane>> lanes_;  // one per offered device, in config order

  absl::CondVar work_;  // a job was queued or ended, or stopping
  DeviceScheduler scheduler_ ABSL_GUARDED_BY(records_->mu());
  bool stopping_ ABSL_GUARDED_BY(records_->mu()) = false;
  bool started_ ABSL_GUARDED_BY(records_->mu()) = false;
};

}  // namespace torchscan::daemon
