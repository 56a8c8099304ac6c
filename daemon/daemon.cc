#include "daemon/daemon.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "core/environment.h"
#include "core/noise_floor.h"
#include "core/timestamp.h"
#include "core/version.h"
#include "daemon/access_rules.h"
#include "daemon/config.h"
#include "daemon/job_sandbox.h"
#include "daemon/restart_rules.h"
#include "libtorch_build_info.h"
#include "spec/job_spec.h"

namespace torchscan::daemon {
namespace {

absl::Status UnknownJob(const std::string& id) {
  return absl::NotFoundError(absl::StrCat("id: no job ", spec::QuoteForMessage(id),
                                          " on this daemon (list them with `torchscan-client jobs list`)"));
}

// At most 2000 bytes, marked when cut.
std::string ShortenForStatus(const std::string& text) {
  constexpr size_t kMax = 2000;
  if (text.size() <= kMax) return text;
  return absl::StrCat(text.substr(0, kMax), "... (", text.size(), " bytes; jobs show ID has all of it)");
}

std::string StateName(v1::Job::State state) { return v1::Job::State_Name(state); }

bool SameProgress(const v1::Job& a, const v1::Job& b) {
  return a.state() == b.state() && a.phase() == b.phase() && a.blocks_done() == b.blocks_done() &&
         a.queue_position() == b.queue_position() && a.worker_pid() == b.worker_pid() && a.error() == b.error() &&
         a.node() == b.node();
}

// What changed, e.g. "state running; phase build baseline".
std::string DescribeChange(const v1::Job& before, const v1::Job& after) {
  std::vector<std::string> parts;
  if (before.state() != after.state())
    parts.push_back(
        absl::StrCat("state ", StateName(after.state()), after.error().empty() ? "" : ": " + after.error()));
  if (before.phase() != after.phase()) parts.push_back("phase " + after.phase());
  if (before.queue_position() != after.queue_position())
    parts.push_back(absl::StrCat("queue position ", after.queue_position()));
  if (before.blocks_done() != after.blocks_done() && after.blocks_done() > 0)
    parts.push_back(absl::StrCat("blocks ", after.blocks_done()));
  if (before.node() != after.node() && !after.node().empty()) parts.push_back("node " + after.node());
  if (before.worker_pid() != after.worker_pid() && after.worker_pid() > 0)
    parts.push_back(absl::StrCat("worker pid ", after.worker_pid()));
  return parts.empty() ? "updated" : absl::StrJoin(parts, "; ");
}

// A ListJobs / History request's state filter: `states` empty takes every state.
bool InStates(const google::protobuf::RepeatedField<int>& states, v1::Job::State state) {
  return states.empty() || std::find(states.begin(), states.end(), state) != states.end();
}

}  // namespace

Daemon::Daemon(const v1::DaemonConfig& config, const JobIsolation& isolation)
    : config_(config),
      started_at_(NowRfc3339()),
      worker_memory_(isolation.memory.description),
      records_(config),
      executor_(config, &records_, isolation) {
  if (IsSlurmFront(config))
    slurm_ = std::make_unique<SlurmFront>(config, &records_, CurrentMachine().executable_dir + "/" + kNodeJobFileName);
}

Daemon::~Daemon() { Shutdown("the daemon was stopped"); }

absl::StatusOr<std::unique_ptr<Daemon>> Daemon::Open(const v1::DaemonConfig& config) {
  // A Slurm front's jobs run sandboxed on their nodes (torchscan-node-job), not here.
  absl::StatusOr<JobIsolation> isolation = IsSlurmFront(config) ? JobIsolation() : OpenJobIsolation(config);
  if (!isolation.ok()) return isolation.status();
  std::unique_ptr<Daemon> daemon(new Daemon(config, *isolation));
  Executor& executor = daemon->executor_;
  SlurmFront* slurm = daemon->slurm_.get();
  absl::Status loaded = daemon->records_.Load([&executor, slurm](const v1::Job& job) {
    executor.AssertHeld();  // Load calls this under the records' mutex
    const std::string& id = job.id();
    if (slurm != nullptr) {
      slurm->Adopt(id);
      return;
    }
    executor.Restore(id, job.submitter());
    spdlog::info("job {} queued again after a restart", id);
  });
  if (!loaded.ok()) return loaded;
  if (slurm != nullptr)
    if (absl::Status s = slurm->Prepare(); !s.ok()) return s;
  return daemon;
}

void Daemon::Start() {
  if (slurm_) slurm_->Start();
  else executor_.Start();
}

v1::Job Daemon::Snapshot(const v1::Job& job) const {
  records_.mu().AssertHeld();
  executor_.AssertHeld();
  v1::Job copy = job;
  copy.set_queue_position(job.state() == v1::Job::queued ? executor_.Position(job.id()) : 0);
  return copy;
}

absl::StatusOr<v1::Job> Daemon::Submit(const v1::SubmitRequest& request, const std::string& submitter) {
  if (!request.has_spec()) return absl::InvalidArgumentError("spec: required");
  if (absl::Status s = spec::ValidateJobSpec(request.spec(), spec::LimitsOf(config_)); !s.ok()) {
    spdlog::info("refused a job from {}: {}", submitter, std::string(s.message()));
    return s;
  }
  if (!request.spec().node().empty() && !slurm_)
    return absl::InvalidArgumentError(
        "spec.node: this daemon runs jobs on its own machine; only a Slurm front daemon places them on nodes "
        "(leave --node out)");
  // The whole spec goes to the job folder for the worker; the record keeps it without the
  // uploaded files' bytes, so listings, events and job.json stay small.
  const v1::JobSpec spec = spec::WithDaemonDefaults(request.spec(), config_);
  v1::Job job;
  *job.mutable_spec() = spec::WithoutUploadedBytes(spec);
  job.set_state(v1::Job::queued);
  job.set_submitter(submitter);
  absl::ReleasableMutexLock lock(&records_.mu());
  executor_.AssertHeld();
  if (executor_.stopping())
    return absl::UnavailableError("torchscand is shutting down; submit again once it has restarted");
  job.set_id(records_.NextId());
  job.set_submitted_at(NowRfc3339());
  if (slurm_) return SubmitToSlurm(job, spec, submitter, lock);
  if (absl::Status s = executor_.Enqueue(job.id(), submitter); !s.ok()) {
    spdlog::info("refused a job from {}: {}", submitter, std::string(s.message()));
    return s;
  }
  if (absl::Status s = records_.StoreNew(job, spec); !s.ok()) {
    executor_.Dequeue(job.id());
    return s;
  }
  const std::string& id = job.id();
  spdlog::info("job {} queued by {} at position {} ({}{})", id, submitter, executor_.Position(id),
               job.spec().has_compare()     ? "compare"
               : job.spec().has_calibrate() ? "calibrate"
                                            : "measure",
               job.spec().label().empty() ? "" : ", label \"" + job.spec().label() + "\"");
  records_.NotifyChanged();
  return Snapshot(*records_.Find(id));
}

absl::StatusOr<v1::Job> Daemon::SubmitToSlurm(v1::Job& job, const v1::JobSpec& spec, const std::string& submitter,
                                              absl::ReleasableMutexLock& lock) {
  records_.mu().AssertHeld();
  if (absl::Status s = records_.StoreNew(job, spec); !s.ok()) return s;
  const std::string id = job.id();
  spdlog::info("job {} stored for Slurm, submitted by {}", id, submitter);
  records_.NotifyChanged();
  lock.Release();  // sbatch may take seconds: nothing waits for it
  if (absl::Status s = slurm_->Submit(id); !s.ok()) return s;
  absl::MutexLock again(&records_.mu());
  return Snapshot(*records_.Find(id));
}

absl::StatusOr<const v1::Job*> Daemon::FindFor(const v1::JobRequest& request, JobAction action,
                                               const Caller& by) const {
  const v1::Job* job = records_.Find(request.id());
  if (job == nullptr) return UnknownJob(request.id());
  if (absl::Status allowed = MayAccess(action, job->id(), job->submitter(), by, config_.admin_group()); !allowed.ok()) {
    spdlog::info("job {}: refused to let {} {} it (submitted by {})", job->id(), by.user,
                 std::string(JobActionName(action)), job->submitter());
    return allowed;
  }
  return job;
}

absl::StatusOr<v1::Job> Daemon::GetJob(const v1::JobRequest& request, const Caller& by) const {
  absl::MutexLock lock(&records_.mu());
  absl::StatusOr<const v1::Job*> job = FindFor(request, JobAction::kShow, by);
  if (!job.ok()) return job.status();
  return ShownTo(Snapshot(**job), by);
}

absl::StatusOr<v1::ListJobsResponse> Daemon::ListJobs(const v1::ListJobsRequest& request, const Caller& by) const {
  if (request.limit() < 0) return absl::InvalidArgumentError(absl::StrCat("limit: ", request.limit(), " is negative"));
  v1::ListJobsResponse response;
  absl::MutexLock lock(&records_.mu());
  const std::map<std::string, v1::Job::State>& states = records_.states();
  for (auto it = states.rbegin(); it != states.rend(); ++it) {
    if (request.limit() > 0 && response.jobs_size() >= request.limit()) break;
    if (!InStates(request.states(), it->second)) continue;
    const v1::Job* job = records_.Find(it->first);
    if (job == nullptr) continue;  // its record cannot be read again (logged)
    v1::Job* listed = response.add_jobs();
    *listed = ListedFor(Snapshot(*job), by);
    listed->clear_timeline();  // up to a hundred spans a job: GetJob has them
  }
  return response;
}

absl::StatusOr<v1::HistoryResponse> Daemon::History(const v1::HistoryRequest& request, const Caller& by) const {
  absl::MutexLock lock(&records_.mu());
  absl::StatusOr<HistoryIndex::Page> page = records_.history().Select(request, [&](const std::string& id) {
    records_.mu().AssertHeld();  // called by Select, under the lock taken above
    if (!InStates(request.states(), records_.states().at(id))) return false;
    const v1::Job* job = records_.Find(id);
    return job != nullptr && SeesAllOf(job->submitter(), by);  // others' labels tell nothing either
  });
  if (!page.ok()) return page.status();
  v1::HistoryResponse response;
  for (const std::string& id : page->ids) {
    const v1::Job* job = records_.Find(id);
    if (job == nullptr) continue;  // its record cannot be read again (logged)
    v1::Job* listed = response.add_jobs();
    *listed = ShownTo(Snapshot(*job), by);
    listed->clear_timeline();  // GetJob has it
  }
  response.set_next_page_token(page->next_page_token);
  return response;
}

// How long Cancel waits for a running job's worker to be killed and its end recorded.
constexpr absl::Duration kCancelWait = absl::Seconds(10);

absl::StatusOr<v1::Job> Daemon::Cancel(const v1::JobRequest& request, const Caller& caller) {
  absl::ReleasableMutexLock lock(&records_.mu());
  absl::StatusOr<const v1::Job*> allowed = FindFor(request, JobAction::kCancel, caller);
  if (!allowed.ok()) return allowed.status();
  executor_.AssertHeld();
  v1::Job& job = *records_.Find(request.id());
  const std::string& by = caller.user;
  if (slurm_ && !IsFinished(job.state())) {
    const std::string id = job.id();
    lock.Release();  // scancel may take seconds
    if (absl::Status s = slurm_->Cancel(id, by); !s.ok()) return s;
    absl::MutexLock again(&records_.mu());
    return Snapshot(*records_.Find(id));
  }
  if (job.state() == v1::Job::queued) {
    executor_.Dequeue(job.id());
    job.set_state(v1::Job::cancelled);
    job.set_error(absl::StrCat("cancelled by ", by, " while queued"));
    job.set_finished_at(NowRfc3339());
    records_.EndPhases(job);
    spdlog::info("job {} cancelled by {} while queued", job.id(), by);
    v1::Job cancelled = Snapshot(job);
    records_.Changed(job, true);
    return cancelled;
  }
  if (job.state() == v1::Job::running && executor_.CancelRunning(job.id(), by)) {
    const std::string id = job.id();
    const absl::Time deadline = absl::Now() + kCancelWait;
    while (records_.Find(id)->state() == v1::Job::running && !records_.WaitForChange(deadline)) {
    }
    return Snapshot(*records_.Find(id));
  }
  return absl::FailedPreconditionError(absl::StrCat("job ", job.id(), " is already ", StateName(job.state()),
                                                    "; only queued or running jobs can be cancelled"));
}

absl::StatusOr<v1::JobResult> Daemon::FetchResult(const v1::JobRequest& request, const Caller& by) const {
  {
    absl::MutexLock lock(&records_.mu());
    absl::StatusOr<const v1::Job*> found = FindFor(request, JobAction::kFetch, by);
    if (!found.ok()) return found.status();
    const v1::Job job = Snapshot(**found);
    switch (job.state()) {
      case v1::Job::succeeded: break;
      case v1::Job::queued:
        return absl::FailedPreconditionError(absl::StrCat("job ", job.id(), " is queued (position ",
                                                          job.queue_position(),
                                                          "); fetch its result once it has succeeded (Watch it)"));
      case v1::Job::running:
        return absl::FailedPreconditionError(absl::StrCat("job ", job.id(), " is running (", job.phase(),
                                                          "); fetch its result once it has succeeded (Watch it)"));
      default:
        // The error can be long (a worker's last stderr line); a status message travels in
        // gRPC metadata, whose size is limited.
        return absl::FailedPreconditionError(absl::StrCat("job ", job.id(), " is ", StateName(job.state()),
                                                          " and has no result: ", ShortenForStatus(job.error())));
    }
  }
  absl::StatusOr<v1::JobResult> result = records_.store().LoadResult(request.id());
  if (result.status().code() == absl::StatusCode::kNotFound)
    return absl::DataLossError(absl::StrCat("job ", request.id(), " succeeded but ", result.status().message()));
  return result;
}

absl::StatusOr<v1::DaemonInfo> Daemon::Info(const v1::InfoRequest&, const Caller& by) const {
  v1::DaemonInfo info;
  info.set_version(kTorchScanVersion);
  *info.mutable_environment() = CaptureEnvironment();
  // The workers' LibTorch: built into them with this daemon (a generated header of constants;
  // the daemon itself never loads LibTorch).
  info.mutable_environment()->set_libtorch_version(TORCHSCAN_LIBTORCH_VERSION);
  *info.mutable_config() = config_;
  info.set_started_at(started_at_);
  info.set_worker_memory(worker_memory_);
  if (slurm_)
    for (v1::SlurmNode& node : slurm_->Nodes(config_.noise_floor_max_age_s())) *info.add_nodes() = std::move(node);
  absl::MutexLock lock(&records_.mu());
  executor_.AssertHeld();
  info.set_queued(static_cast<int32_t>(slurm_ ? slurm_->queued() : executor_.queued()));
  info.set_running_job(slurm_ ? absl::StrJoin(slurm_->running(), ",") : executor_.running_id());
  info.set_spare_worker_pid(executor_.spare().pid());
  info.set_spare_worker_rss_bytes(executor_.spare().rss_bytes());
  info.set_spare_worker_ready(executor_.spare().ready());
  if (const std::optional<v1::NoiseFloor>& floor = records_.noise_floor())
    *info.mutable_noise_floor() = AgedNoiseFloor(*floor, NowRfc3339(), config_.noise_floor_max_age_s());
  for (const v1::NoiseFloor& floor : records_.gpu_noise_floors())
    *info.add_gpu_noise_floors() = AgedNoiseFloor(floor, NowRfc3339(), config_.noise_floor_max_age_s());
  return InfoFor(std::move(info), by);
}

// How long Watch waits between looks at whether its client stopped watching.
constexpr absl::Duration kWatchPoll = absl::Milliseconds(200);

absl::Status Daemon::Watch(const v1::JobRequest& request, const Caller& by, const WatchSink& sink) const {
  v1::Job last;
  {
    absl::MutexLock lock(&records_.mu());
    absl::StatusOr<const v1::Job*> found = FindFor(request, JobAction::kWatch, by);
    if (!found.ok()) return found.status();
    last = ShownTo(Snapshot(**found), by);
  }
  v1::JobEvent event;
  *event.mutable_job() = last;
  event.set_message(absl::StrCat("state ", StateName(last.state())));
  while (true) {
    if (!sink.write(event)) return absl::CancelledError("the client stopped watching");
    if (IsFinished(last.state())) return absl::OkStatus();
    absl::MutexLock lock(&records_.mu());
    while (true) {
      records_.WaitForChange(absl::Now() + kWatchPoll);
      if (sink.cancelled && sink.cancelled()) return absl::CancelledError("the client stopped watching");
      const v1::Job current = ShownTo(Snapshot(*records_.Find(request.id())), by);
      if (!SameProgress(current, last)) {
        event.set_message(DescribeChange(last, current));
        *event.mutable_job() = current;
        last = current;
        break;
      }
      if (stopped_) {
        return absl::UnavailableError(absl::StrCat("torchscand is shutting down; job ", request.id(), " stays ",
                                                   StateName(last.state()), " for its next start"));
      }
    }
  }
}

void Daemon::Shutdown(const std::string& reason) {
  {
    absl::MutexLock lock(&records_.mu());
    if (stopped_) return;
  }
  executor_.Stop(reason);
  if (slurm_) slurm_->Stop();  // its jobs run on in Slurm; the next start follows them again
  absl::MutexLock lock(&records_.mu());
  executor_.AssertHeld();
  records_.Flush();
  stopped_ = true;
  records_.NotifyChanged();
  spdlog::info("stopped: {} jobs stay queued", executor_.queued());
}

}  // namespace torchscan::daemon
