// The daemon's result storage in memory, over its JobStore (job_store.h): the records of
// unfinished jobs, the most recently used finished ones (finished_records.h; the others are
// read again from their job.json when asked for, so memory stays flat however many jobs
// have run), every job's state, the history index by label (history_index.h), the open
// timelines of unfinished jobs (job_phases.h), the records that found no room on disk yet,
// the record cache's refresh and the latest calibration's noise floor, which finished
// results are given.
//
// Storage rules:
//   - A record that cannot be rewritten (Changed while state_dir is full) is kept in memory,
//     served as it is, and stored with the next record written (or at Flush); the file keeps
//     its previous whole version meanwhile.
//   - A new job (StoreNew) is stored whole (spec.binpb and job.json) or not at all: on failure
//     what was written is discarded and the job is not recorded (ResourceExhausted naming
//     state_dir, its free bytes and the fix).
//   - jobs.cache is rewritten at most every kRecordCacheInterval after a job finishes, and at
//     Flush; its failures are logged, never returned.
//   - CompleteResult's failures are logged; the job still succeeded.
//
// Thread-safety: one mutex, mu(), guards everything here; it is also the lock of the daemon's
// queue and running job (executor.h), so that a job's record and its place in the queue change
// together. Methods marked ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) assert it at run time
// (absl::Mutex::AssertHeld). store() is usable from any thread without mu() (JobStore locks
// what it shares). Logs one spdlog line per storage event, with the job id. gRPC-free.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/finished_records.h"
#include "daemon/history_index.h"
#include "daemon/job_phases.h"
#include "daemon/job_store.h"
#include "proto/service.pb.h"

namespace torchscan::daemon {

class JobRecords {
 public:
  // The store under config.state_dir; nothing is read before Load. `config` must be valid.
  explicit JobRecords(const v1::DaemonConfig& config);
  JobRecords(const JobRecords&) = delete;
  JobRecords& operator=(const JobRecords&) = delete;

  // Opens the store (created when missing; locked against a second daemon) and loads every
  // record and the noise floor (JobStore::LoadAll's restart rules apply); unreadable records
  // and a damaged noise floor are logged, skipped and kept in load_problems(). `requeue` is
  // called with each unfinished job (queued, or on a Slurm front still running in
  // Slurm), in submission order, with mu() held, before that job's record is added; its
  // timeline starts again now ("queue wait", or its phase). Errors: the store's (JobStore::Open).
  absl::Status Load(const std::function<void(const v1::Job& job)>& requeue) ABSL_LOCKS_EXCLUDED(mu_);
  const std::vector<std::string>& load_problems() const { return load_problems_; }

  absl::Mutex& mu() const ABSL_LOCK_RETURNED(mu_) { return mu_; }
  JobStore& store() { return store_; }
  const JobStore& store() const { return store_; }

  // The record of job `id`; nullptr for an unknown id, or a finished record that cannot be
  // read again from its job.json (logged). The pointer is valid until the next call of Find,
  // Changed or StoreNew, except that the record passed to Changed stays valid through it.
  v1::Job* Find(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  const v1::Job* Find(const std::string& id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Every job's state by id (ids sort in submission order).
  const std::map<std::string, v1::Job::State>& states() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // How many finished records are kept parsed in memory now (for tests).
  size_t kept_finished() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  const HistoryIndex& history() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The latest calibration's noise floor of `device` on this machine (node ""), or on Slurm
  // node `node`, if any: each device has its own (a GPU's is not the CPU's).
  std::optional<v1::NoiseFloor> noise_floor(const std::string& node = "", const std::string& device = "cpu") const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // This machine's GPUs' noise floors, in device order.
  std::vector<v1::NoiseFloor> gpu_noise_floors() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // The id the next stored job gets.
  std::string NextId() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Records `job` (id NextId(), queued; `spec` whole, job.spec without uploaded bytes): its id
  // is used up, its "queue wait" phase begins at job.submitted_at, spec.binpb and job.json are
  // written and it is added to the records and the history. On failure see the storage rules.
  absl::Status StoreNew(v1::Job& job, const v1::JobSpec& spec) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Persists `job` (`persist`: state changes only) and wakes the waiters of WaitForChange. A
  // finished record that is on disk joins the kept finished ones (`job` stays where it is).
  void Changed(const v1::Job& job, bool persist) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // At shutdown: stores the records that found no room before (those still failing are
  // logged) and rewrites jobs.cache.
  void Flush() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Rewrites the state folder's jobs.cache (JobStore::SaveCache) when `now_anyway` or when
  // kRecordCacheInterval has passed since the last time, so that a restart, even after
  // kill -9, parses at most that interval's finished records from JSON. A failure is logged.
  void RefreshRecordCache(bool now_anyway) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // The job's record timeline (Job.timeline): opens `phase` now, ending the open one, and
  // copies the timeline into `job`. The job's first phase makes its timeline, whose time 0 is
  // now and whose started_at is `submitted_at` (else now). False, with nothing changed, past
  // kMaxJobPhases (job_phases.h).
  bool BeginPhase(v1::Job& job, const std::string& phase, const std::string& submitted_at = "")
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // `count` children started with job `id`'s worker (JobPhases::EarlyChildrenStarted).
  void EarlyChildrenStarted(const std::string& id, int count) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Copies job `id`'s open timeline into its record (nothing when it has none).
  void RefreshTimeline(v1::Job& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends the job's open phase, copies the timeline into `job` and forgets it.
  void EndPhases(v1::Job& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // After job `id` succeeded: a calibration's noise floor becomes its device's on the daemon's
  // machine, or on its node when the job ran on a Slurm node (Job.node) (stored in the state
  // folder first; kept in memory only if that fails); a report or comparison gets the current
  // noise floor of the device and machine it ran on, judged for its settings
  // (core/noise_floor.h), and the job record's timeline as
  // its job_timeline, in its result.json.
  void CompleteResult(const std::string& id, const v1::Timeline& job_timeline, v1::JobResult* result)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Wakes every WaitForChange.
  void NotifyChanged() { changed_.SignalAll(); }
  // Waits for a change (or a spurious wake-up) until `deadline`; true when it passed.
  bool WaitForChange(absl::Time deadline) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

 private:
  // Writes the records that found no room before, oldest id first, until one fails.
  void StoreUnsaved() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Job `id`'s record, from memory or read again (Find).
  v1::Job* Lookup(const std::string& id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A finished record on disk leaves the unfinished ones for the kept finished ones.
  void Retire(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string state_dir_;
  const double noise_floor_max_age_s_;
  const bool slurm_front_;  // running jobs in Slurm survive a restart
  JobStore store_;
  std::vector<std::string> load_problems_;  // written by Load only, before any other thread

  mutable absl::Mutex mu_;
  mutable absl::CondVar changed_;  // any job changed, or shutting down
  // By id: queued and running jobs, and finished ones not stored yet (unsaved_).
  std::map<std::string, v1::Job> live_ ABSL_GUARDED_BY(mu_);
  mutable FinishedRecords finished_ ABSL_GUARDED_BY(mu_);                    // the most recently used
  std::map<std::string, v1::Job::State> states_ ABSL_GUARDED_BY(mu_);        // every job's
  HistoryIndex history_ ABSL_GUARDED_BY(mu_);                                // the ids of each label's jobs
  std::map<std::string, JobPhases> phases_ ABSL_GUARDED_BY(mu_);             // timelines of unfinished jobs
  std::set<std::string> unsaved_ ABSL_GUARDED_BY(mu_);                       // latest record not on disk
  std::map<std::string, v1::NoiseFloor> noise_floors_ ABSL_GUARDED_BY(mu_);  // by NoiseFloorKey (job_store.h)
  int64_t last_number_ ABSL_GUARDED_BY(mu_) = 0;
  std::chrono::steady_clock::time_point cache_saved_at_ ABSL_GUARDED_BY(mu_) = std::chrono::steady_clock::now();
};

}  // namespace torchscan::daemon
