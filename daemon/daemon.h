// torchscand's logic without gRPC: the job table, the exclusive queue, the executor thread
// that runs one job at a time in a fresh worker (the warm spare when there is one:
// spare_slot.h; started between jobs, never beside one), persistence and watchers. The gRPC
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
// Thread-safe. Logs one spdlog line per job event, with the job id.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/caller.h"
#include "daemon/history_index.h"
#include "daemon/job_phases.h"
#include "daemon/job_queue.h"
#include "daemon/job_runner.h"
#include "daemon/job_store.h"
#include "daemon/spare_slot.h"
#include "daemon/worker_launcher.h"
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

  // Starts the executor thread (once).
  void Start();

  // Validates (spec/job_spec.h), applies the daemon's thread defaults, stores and queues the job.
  absl::StatusOr<v1::Job> Submit(const v1::SubmitRequest& request, const std::string& submitter);
  absl::StatusOr<v1::Job> GetJob(const v1::JobRequest& request) const;
  // Newest first; filtered by state; at most `limit` (0: all); without their timelines.
  absl::StatusOr<v1::ListJobsResponse> ListJobs(const v1::ListJobsRequest& request) const;
  // A page of a benchmark's history: the jobs labelled request.name, newest first, filtered by
  // state (empty: all), without their timelines; a succeeded measure or compare job carries
  // its summary. Answered from memory through an index by name (history_index.h), so a page
  // costs its own jobs, not every job's. InvalidArgument naming name, page_size or page_token
  // (HistoryIndex::Select).
  absl::StatusOr<v1::HistoryResponse> History(const v1::HistoryRequest& request) const;
  // A queued job is cancelled at once; a running job's worker is killed and Cancel returns
  // once the job is recorded cancelled (or after 10 s, with the job as it then is).
  // PermissionDenied unless `by` submitted the job or is an admin (access_rules.h: MayCancel,
  // with the configuration's admin_group).
  absl::StatusOr<v1::Job> Cancel(const v1::JobRequest& request, const Caller& by);
  absl::StatusOr<v1::JobResult> FetchResult(const v1::JobRequest& request) const;
  absl::StatusOr<v1::DaemonInfo> Info(const v1::InfoRequest& request) const;
  // Sends the job as it is, then one event per change (state, phase, blocks, queue position,
  // worker pid; changes close together may come as one event whose message lists each, e.g.
  // "state running; phase build baseline") until the job is finished (OK after the last
  // event), the sink says stop (Cancelled), or the daemon shuts down while the job is
  // unfinished (Unavailable). NotFound first for an unknown id.
  absl::Status Watch(const v1::JobRequest& request, const WatchSink& sink) const;

  // Stops accepting jobs, kills a running worker and records its job interrupted with
  // `reason`, ends watches and joins the executor. Queued jobs stay queued on disk for the
  // next start. Idempotent.
  void Shutdown(const std::string& reason);

  // Records skipped at start-up, one line each.
  const std::vector<std::string>& load_problems() const { return load_problems_; }
  const v1::DaemonConfig& config() const { return config_; }

 private:
  explicit Daemon(const v1::DaemonConfig& config);
  void ExecutorLoop();
  // Runs the job ExecutorLoop marked running (on the warm spare when its record's worker is
  // "warm spare" and the spare becomes ready, else on a cold worker) and records how it ended.
  void RunOne(const std::string& id, const v1::JobSpec& spec, WorkerControl* control);
  // The job gets a cold worker after all (the spare it was to have is gone): its record's
  // worker says why, and a new "worker start" phase begins. Takes mu_.
  void FallBackToColdWorker(const std::string& id, const std::string& why);
  // The job with its live queue position. Requires mu_.
  v1::Job Snapshot(const v1::Job& job) const;
  absl::StatusOr<v1::Job*> Find(const std::string& id);  // requires mu_
  // Persists (state changes only) and wakes watchers. Requires mu_.
  void Changed(const v1::Job& job, bool persist);
  // Writes the records that found no room before, oldest id first, until one fails. Requires mu_.
  void StoreUnsaved();
  // Rewrites the state folder's jobs.cache (JobStore::SaveCache) when `now_anyway` or when
  // kRecordCacheInterval has passed since the last time, so that a restart, even after
  // kill -9, parses at most that interval's finished records from JSON. A failure is logged.
  // Requires mu_.
  void RefreshRecordCache(bool now_anyway);
  // After job `id` succeeded: a calibration's noise floor becomes the daemon's (stored in the
  // state folder first; kept in memory only if that fails); a report or comparison gets the
  // current noise floor, judged for its settings (core/noise_floor.h), and the job record's
  // timeline as its job_timeline, in its result.json. Requires mu_. Failures are logged; the
  // job still succeeded.
  void CompleteResult(const std::string& id, const v1::Timeline& job_timeline, v1::JobResult* result);
  // The job's record timeline (Job.timeline): opens `phase` now, ending the open one, and
  // copies the timeline into `job`. The job's first phase makes its timeline, whose time 0 is
  // now and whose started_at is `submitted_at` (else now). Requires mu_.
  void BeginPhase(v1::Job& job, const std::string& phase, const std::string& submitted_at = "");
  // Ends the job's open phase, copies the timeline into `job` and forgets it. Requires mu_.
  void EndPhases(v1::Job& job);

  const v1::DaemonConfig config_;
  const JobRunOptions run_options_;
  const std::string started_at_;
  JobStore store_;
  std::vector<std::string> load_problems_;
  std::optional<v1::NoiseFloor> noise_floor_;  // the latest calibration's; guarded by mu_
  SpareSlot spare_;                            // the executor's (pid and RSS: any thread)

  mutable std::mutex mu_;
  mutable std::condition_variable changed_;  // any job changed, or shutting down
  std::condition_variable work_;             // a job was queued, or shutting down
  std::map<std::string, v1::Job> jobs_;      // by id (ids sort in submission order)
  HistoryIndex history_;                     // the ids of each label's jobs
  std::map<std::string, JobPhases> phases_;  // timelines of unfinished jobs, by id
  std::set<std::string> unsaved_;            // ids whose latest record is not on disk
  std::chrono::steady_clock::time_point cache_saved_at_ = std::chrono::steady_clock::now();
  JobQueue queue_;
  int64_t last_number_ = 0;
  std::string running_id_;
  std::shared_ptr<WorkerControl> running_control_;
  bool running_cancelled_ = false;           // the kill was a cancel (else an interruption)
  bool stopping_ = false;                   // Shutdown began: no new jobs
  bool stopped_ = false;                    // Shutdown finished: the executor has ended
  std::thread executor_;
};

}  // namespace torchscan::daemon
