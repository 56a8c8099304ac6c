// torchscand's logic without gRPC: the job table, the queue, the lanes that run each job in a
// fresh worker (one job at a time per device; a CPU job alone), persistence and watchers. The gRPC
// service (service.h) is a thin shell over these methods; each takes a request message and
// returns a value or an absl::Status:
//   InvalidArgument    a bad spec or request, naming the field ("spec.measure.workload ...")
//   ResourceExhausted  the queue is full, or the spec exceeds max_upload_bytes (names the limit),
//                      or the job cannot be stored in state_dir (full: names state_dir, its
//                      free bytes and the fix); nothing is queued or left in state_dir then
//   NotFound           an unknown job id
//   PermissionDenied   cancelling another user's job without being an admin
//   FailedPrecondition cancelling a finished job; fetching the result of a job that has not
//                      succeeded; rss without an RSS child
//   Unavailable        the daemon is shutting down
//   DataLoss           a stored result that cannot be read back
// A job record that cannot be rewritten later (a state change while state_dir is full) is
// kept in memory, served as it is, and stored with the next record written (or at Shutdown);
// the file keeps its previous whole version meanwhile.
// Every kind of job the schema describes is accepted, TorchScript check modules included:
// Submit checks that such a module has a source (spec/job_spec.h), and the job's worker loads it
// before timing and calls it after (experiment/script_check.h): its verdict is the comparison's
// output check, and a module the worker cannot load (or an error other than a failed assert
// while it runs) fails the job, naming spec.compare.check.torchscript when it cannot load.
// Built from two parts with contracts of their own: JobRecords (job_records.h: the records,
// their storage and the noise floors) and a JobBackend (job_backend.h, chosen by the
// configuration): the Executor (executor.h: the queue and a lane per device that runs its
// jobs) or, on a Slurm front (DaemonConfig.slurm), the SlurmFront (slurm_front.h: each job
// handed to Slurm, followed and recorded; Slurm is the queue). Thread-safe: every method may
// be called from any thread; the shared state is guarded by JobRecords::mu(). Logs one spdlog
// line per job event, with the job id.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/access_rules.h"
#include "daemon/caller.h"
#include "daemon/job_backend.h"
#include "daemon/job_records.h"
#include "proto/service.pb.h"

namespace torchscan::daemon {

// Where Watch sends events.
struct WatchSink {
  std::function<bool(const v1::JobEvent&)> write;  // false: the client has gone
  std::function<bool()> cancelled;                 // true: stop (client gone, deadline); may be empty
};

class Daemon {
 public:
  // Opens the store under config.state_dir (created when missing; locked against a second
  // daemon) and loads every job: running ones become interrupted, queued ones are queued
  // again in submission order; unreadable records are logged and skipped. `config` must be
  // valid (config.h). Errors: the store's (folder not creatable, state_dir in use).
  static absl::StatusOr<std::unique_ptr<Daemon>> Open(const v1::DaemonConfig& config);
  ~Daemon();  // Shutdown("the daemon was destroyed")

  // Starts running jobs (the backend's Start; once).
  void Start();

  // Validates (spec/job_spec.h), applies the daemon's thread defaults, stores and queues the job.
  absl::StatusOr<v1::Job> Submit(const v1::SubmitRequest& request, const std::string& submitter);
  // GetJob, Watch, FetchResult and Cancel: PermissionDenied unless `by` submitted the job or is
  // an admin (access_rules.h: MayAccess, with the configuration's admin_group); NotFound first
  // for an unknown id.
  absl::StatusOr<v1::Job> GetJob(const v1::JobRequest& request, const Caller& by) const;
  // Everyone's jobs, newest first; filtered by state; at most `limit` (0: all); without their
  // timelines; others' as `by` may see them (access_rules.h: ListedFor).
  absl::StatusOr<v1::ListJobsResponse> ListJobs(const v1::ListJobsRequest& request, const Caller& by) const;
  // A page of a benchmark's history: `by`'s jobs (an admin's: everyone's) labelled
  // request.name, newest first, filtered by state (empty: all), without their timelines; a
  // succeeded measure or compare job carries its summary. Answered from memory through an
  // index by name (history_index.h), so a page costs its own jobs, not every job's.
  // request.device: only jobs that ran on it. InvalidArgument naming name, page_size or
  // page_token (HistoryIndex::Select), or device (a name that does not parse).
  absl::StatusOr<v1::HistoryResponse> History(const v1::HistoryRequest& request, const Caller& by) const;
  // A queued job is cancelled at once; a running job's worker is killed and Cancel returns
  // once the job is recorded cancelled (or after 10 s, with the job as it then is).
  absl::StatusOr<v1::Job> Cancel(const v1::JobRequest& request, const Caller& by);
  absl::StatusOr<v1::JobResult> FetchResult(const v1::JobRequest& request, const Caller& by) const;
  // The daemon, its machine and configuration and its queue, as `by` may see them (InfoFor).
  absl::StatusOr<v1::DaemonInfo> Info(const v1::InfoRequest& request, const Caller& by) const;
  // Sends the job as it is, then one event per change (state, phase, blocks, queue position,
  // worker pid; changes close together may come as one event whose message lists each, e.g.
  // "state running; phase build baseline") until the job is finished (OK after the last
  // event), the sink says stop (Cancelled), or the daemon shuts down while the job is
  // unfinished (Unavailable). NotFound first for an unknown id.
  absl::Status Watch(const v1::JobRequest& request, const Caller& by, const WatchSink& sink) const;

  // Stops accepting jobs, kills a running worker and records its job interrupted with
  // `reason`, ends watches and joins the executor. Queued jobs stay queued on disk for the
  // next start. Idempotent.
  void Shutdown(const std::string& reason);

  // Records skipped at start-up, one line each.
  const std::vector<std::string>& load_problems() const { return records_.load_problems(); }
  const v1::DaemonConfig& config() const { return config_; }

 private:
  explicit Daemon(const v1::DaemonConfig& config);
  // The job with its live queue position.
  v1::Job Snapshot(const v1::Job& job) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_.mu());
  // The job `request` names, when `by` may do `action` to it (MayAccess; NotFound first).
  absl::StatusOr<const v1::Job*> FindFor(const v1::JobRequest& request, JobAction action, const Caller& by) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(records_.mu());

  const v1::DaemonConfig config_;
  const std::string started_at_;
  JobRecords records_;
  std::unique_ptr<JobBackend> backend_;                  // after records_: stopped before they go
  bool stopped_ ABSL_GUARDED_BY(records_.mu()) = false;  // Shutdown finished: the backend has stopped
};

}  // namespace torchscan::daemon
