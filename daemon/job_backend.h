// Where a daemon's jobs run, behind one interface: on this machine's devices (executor.h: a
// queue and a lane per device, each job in a fresh worker) or on a Slurm partition
// (slurm_front.h: each job handed to Slurm, which is the queue). The Daemon (daemon.h) checks,
// stores and serves the records; a backend queues, runs or hands over, and records each job's
// progress and end in JobRecords. OpenJobBackend picks one by the configuration.
//
// Thread-safety: methods whose comment says "under the mutex" are called holding the
// records' mutex (JobRecords::mu(); implementations assert it); the others take it themselves
// and must be called without it.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/job_records.h"
#include "proto/service.pb.h"

namespace torchscan::daemon {

class JobBackend {
 public:
  virtual ~JobBackend() = default;

  // Under the mutex, at start-up, for each unfinished job loaded (JobRecords::Load): queued
  // again, or followed again in Slurm.
  virtual void Restore(const v1::Job& job) = 0;
  // Once the records are loaded, before Start: what must be ready before jobs run (errors
  // stop the daemon's start).
  virtual absl::Status Prepare() { return absl::OkStatus(); }
  // Starts running jobs (once).
  virtual void Start() = 0;
  // Stops: no new jobs; a local job's worker is killed and its job recorded interrupted with
  // `reason` (jobs in Slurm run on, followed again at the next start); queued jobs stay
  // queued for the next start. Idempotent.
  virtual void Stop(const std::string& reason) = 0;
  // Under the mutex: Stop has begun (Submit refuses).
  virtual bool stopping() const = 0;

  // Under the mutex, before job `job` (queued, its id and submitter set) is stored: takes it.
  // An error refuses the job (the queue is full ...): nothing is stored.
  virtual absl::Status Accept(const v1::Job& job) = 0;
  // Under the mutex: a job Accept took could not be stored after all.
  virtual void Withdraw(const std::string& id) = 0;
  // Without the mutex, once the job is stored: hands it on (Slurm: sbatch, which may take
  // seconds). An error has been recorded as the job's failure, and says why.
  virtual absl::Status HandOver(const std::string& /*id*/) { return absl::OkStatus(); }
  // Without the mutex: cancels unfinished job `id` for user `by` (queued: at once; running:
  // its worker or Slurm job killed) and returns once it is recorded, or after 10 s. A job
  // that finished meanwhile is left as it ended (OK). FailedPrecondition when the kill could
  // not be asked for (Slurm unreachable).
  virtual absl::Status Cancel(const std::string& id, const std::string& by) = 0;

  // Under the mutex: a queued job's place (1 = next on its devices); 0 when not queued here.
  virtual int Position(const std::string& id) const = 0;
  // Under the mutex: how many jobs wait.
  virtual int queued() const = 0;
  // Without the mutex: fills `info`'s queue, running jobs, spare workers, devices or nodes,
  // worker memory.
  virtual void Describe(v1::DaemonInfo* info) const = 0;
};

// The configuration's backend: a Slurm front's (IsSlurmFront) or this machine's, whose jobs
// run isolated (OpenJobIsolation's errors). `records` must outlive it.
absl::StatusOr<std::unique_ptr<JobBackend>> OpenJobBackend(const v1::DaemonConfig& config, JobRecords* records);

}  // namespace torchscan::daemon
