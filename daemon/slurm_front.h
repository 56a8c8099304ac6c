// A Slurm front daemon's backend (job_backend.h): instead of running jobs on its own machine
// (executor.h), torchscand hands each job to Slurm as one batch job (slurm_commands.h's
// SbatchArgs: an exclusive allocation of one node of the configured partition, --no-requeue)
// whose step runs torchscan-node-job (node_job_main.cc), which runs the job's worker there
// exactly as torchscand would. Slurm is the queue: the front keeps none beside it; a compare
// job's two runs are one worker, so they always share one node and one allocation.
//
// Storage: the state folder is shared storage, at the same path on the front and every node.
// The job's folder (spec in, result.json and worker.stderr out) is the worker's as on one
// machine; <state_dir>/slurm/<id>/ holds what only the front and the node-side program
// write: node.log (Slurm's output of the step: "node HOST", then the worker's progress
// lines) and node-outcome.txt (node_outcome.h). A follower thread polls squeue and those
// files every half second and turns them into the job's record: queued while Slurm holds it
// pending (phase "Slurm queue: <reason>"), running from the moment it runs on a node (Job.node,
// Job.worker "Slurm job N on node X"), its phases and blocks, then its end. The record of a
// job Slurm took carries its Slurm job id (Job.slurm_job_id), stored before sbatch's answer
// is acted on, so that:
//   - a front killed (kill -9) and started again follows its unfinished jobs again (restart
//     rules: such jobs stay running); a job stored but never acknowledged by sbatch is looked
//     up in Slurm by its name and folder and handed over only when Slurm does not have it:
//     nothing is lost, nothing runs twice;
//   - a job Slurm ends without an outcome file (its node went down: NODE_FAIL; the time
//     limit; scancel from outside) fails with Slurm's state, the node and its reason. It is
//     not requeued: a rerun elsewhere would mix nodes behind the user's back.
//   - slurmctld unreachable: Submit is refused (Unavailable naming Slurm and the fix; the
//     stored job is recorded failed with the same reason); the follower keeps reading the
//     files it can, and the daemon serves everything it has.
// Thread-safety: the followed jobs are guarded by the records' mutex (JobRecords::mu());
// Slurm commands always run without it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "daemon/job_backend.h"
#include "daemon/job_records.h"
#include "daemon/job_runner.h"
#include "daemon/slurm_commands.h"
#include "daemon/slurm_config.h"
#include "proto/service.pb.h"

namespace torchscan::daemon {

class SlurmFront final : public JobBackend {
 public:
  // `config`: a valid Slurm front's (IsSlurmFront); `records` outlives it; `own_node_job`:
  // torchscan-node-job beside this torchscand (used when slurm.node_bin_dir is empty).
  SlurmFront(const v1::DaemonConfig& config, JobRecords* records, const std::string& own_node_job);
  ~SlurmFront() override;  // Stop
  SlurmFront(const SlurmFront&) = delete;
  SlurmFront& operator=(const SlurmFront&) = delete;

  // An unfinished job loaded at start-up: followed again (one stored but never acknowledged
  // by sbatch is handed over by the follower when Slurm does not have it).
  void Restore(const v1::Job& job) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // Writes <state_dir>/slurm/node-config.json, the configuration the nodes run jobs with
  // (this one with the nodes' program paths and no cpu_set). Internal naming the file.
  absl::Status Prepare() override;
  // Starts the follower thread (once), which also hands over the jobs Restore found unsubmitted.
  void Start() override ABSL_LOCKS_EXCLUDED(records_->mu());
  // Stops following; jobs in Slurm run on and stay recorded as they are. Idempotent.
  void Stop(const std::string& reason) override ABSL_LOCKS_EXCLUDED(records_->mu());
  bool stopping() const override ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // Slurm is the queue: nothing to take before the job is stored.
  absl::Status Accept(const v1::Job&) override { return absl::OkStatus(); }
  void Withdraw(const std::string&) override {}
  // Hands job `id`, just stored queued with its spec, to sbatch. OK: its record has its Slurm
  // job id. Else the job is recorded failed with the reason, which the error carries
  // (FailedPrecondition: the daemon answers, Slurm refused or is unreachable; the text says
  // which and the fix).
  absl::Status HandOver(const std::string& id) override ABSL_LOCKS_EXCLUDED(records_->mu());
  // scancel of job `id` (queued or running in Slurm); the follower records it cancelled by
  // `by`. Returns once it is recorded, or after 10 s. FailedPrecondition when scancel failed
  // (Slurm unreachable: the job is left as it is), or while sbatch has not answered yet.
  absl::Status Cancel(const std::string& id, const std::string& by) override ABSL_LOCKS_EXCLUDED(records_->mu());
  // Slurm orders its own queue (the job's phase says why it waits): no position here.
  int Position(const std::string&) const override { return 0; }
  int queued() const override ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // The partition's nodes (sinfo; none when it fails, logged), each with its noise floor
  // aged by the configuration's noise_floor_max_age_s, and the unfinished jobs by state.
  void Describe(v1::DaemonInfo* info) const override ABSL_LOCKS_EXCLUDED(records_->mu());

 private:
  struct Followed {
    std::string slurm_id;    // "" until sbatch answered
    int64_t log_offset = 0;  // node.log read so far
    std::string cancel_by;   // Cancel asked by this user
    bool adopted = false;    // Adopt: loaded at start-up, not yet looked at
    int polls_gone = 0;      // polls since Slurm no longer lists it or ended it, without an outcome
  };
  // What one poll saw of a job, outside the lock.
  struct Seen {
    std::string id;
    std::string slurm_id;
    bool known = false;  // squeue answered and listed it
    SlurmJobState slurm;
    std::vector<std::string> lines;  // new whole lines of node.log
    int64_t log_offset = 0;
    std::optional<std::string> outcome;  // node-outcome.txt
  };

  std::vector<std::string> running() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  void Loop();
  void Poll() ABSL_LOCKS_EXCLUDED(records_->mu());
  // Hands over the adopted jobs Slurm does not have.
  void SubmitAdopted() ABSL_LOCKS_EXCLUDED(records_->mu());
  void Apply(const Seen& seen, bool squeue_ok, const std::map<std::string, std::string>& node_reasons)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  // A job Slurm ended without an outcome file: why, in Slurm's words.
  std::string EndedBySlurm(const std::string& id, const Followed& f, const Seen& seen,
                           const std::map<std::string, std::string>& node_reasons) const;
  void Finish(const std::string& id, JobRunOutcome& outcome, v1::Job::State killed_state)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_->mu());
  std::string SlurmDir(const std::string& id) const;

  const v1::DaemonConfig config_;
  JobRecords* const records_;
  const NodePrograms programs_;
  std::map<std::string, Followed> followed_ ABSL_GUARDED_BY(records_->mu());
  bool stopping_ ABSL_GUARDED_BY(records_->mu()) = false;
  absl::CondVar wake_;  // stopping
  std::thread thread_;
  std::string last_poll_error_;  // the follower thread's own: squeue's last failure, "" when it answered
};

}  // namespace torchscan::daemon
