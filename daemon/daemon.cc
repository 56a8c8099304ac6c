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
#include "daemon/restart_rules.h"
#include "libtorch_build_info.h"
#include "spec/device_name.h"
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

Daemon::Daemon(const v1::DaemonConfig& config) : config_(config), started_at_(NowRfc3339()), records_(config) {}

Daemon::~Daemon() { Shutdown("the daemon was stopped"); }

absl::StatusOr<std::unique_ptr<Daemon>> Daemon::Open(const v1::DaemonConfig& config) {
  std::unique_ptr<Daemon> daemon(new Daemon(config));
  absl::StatusOr<std::unique_ptr<JobBackend>> backend = OpenJobBackend(config, &daemon->records_);
  if (!backend.ok()) return backend.status();
  daemon->backend_ = *std::move(backend);
  JobBackend& opened = *daemon->backend_;
  absl::Status loaded = daemon->records_.Load([&opened](const v1::Job& job) { opened.Restore(job); });
  if (!loaded.ok()) return loaded;
  if (absl::Status s = opened.Prepare(); !s.ok()) return s;
  return daemon;
}

void Daemon::Start() { backend_->Start(); }

v1::Job Daemon::Snapshot(const v1::Job& job) const {
  records_.mu().AssertHeld();
  v1::Job copy = job;
  copy.set_queue_position(job.state() == v1::Job::queued ? backend_->Position(job.id()) : 0);
  return copy;
}

absl::StatusOr<v1::Job> Daemon::Submit(const v1::SubmitRequest& request, const std::string& submitter) {
  if (!request.has_spec()) return absl::InvalidArgumentError("spec: required");
  if (absl::Status s = spec::ValidateJobSpec(request.spec(), spec::LimitsOf(config_)); !s.ok()) {
    spdlog::info("refused a job from {}: {}", submitter, std::string(s.message()));
    return s;
  }
  // The whole spec goes to the job folder for the worker; the record keeps it without the
  // uploaded files' bytes, so listings, events and job.json stay small.
  const v1::JobSpec spec = spec::WithDaemonDefaults(request.spec(), config_);
  v1::Job job;
  *job.mutable_spec() = spec::WithoutUploadedBytes(spec);
  job.set_state(v1::Job::queued);
  job.set_submitter(submitter);
  std::string id;
  {
    absl::MutexLock lock(&records_.mu());
    if (backend_->stopping())
      return absl::UnavailableError("torchscand is shutting down; submit again once it has restarted");
    job.set_id(records_.NextId());
    job.set_submitted_at(NowRfc3339());
    id = job.id();
    if (absl::Status s = backend_->Accept(job); !s.ok()) {
      spdlog::info("refused a job from {}: {}", submitter, std::string(s.message()));
      return s;
    }
    if (absl::Status s = records_.StoreNew(job, spec); !s.ok()) {
      backend_->Withdraw(id);
      return s;
    }
    spdlog::info("job {} queued by {} at position {} ({} on {}{})", id, submitter, backend_->Position(id),
                 job.spec().has_compare()     ? "compare"
                 : job.spec().has_calibrate() ? "calibrate"
                                              : "measure",
                 absl::StrJoin(spec::JobDeviceNames(job.spec()), ", "),
                 job.spec().label().empty() ? "" : ", label \"" + job.spec().label() + "\"");
    records_.NotifyChanged();
  }
  // Slurm's sbatch may take seconds: nothing waits for it under the lock.
  if (absl::Status s = backend_->HandOver(id); !s.ok()) return s;
  absl::MutexLock lock(&records_.mu());
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
  std::string device;
  if (!request.device().empty()) {
    absl::StatusOr<spec::DeviceName> name = spec::ParseDeviceName(request.device());
    if (!name.ok()) return absl::InvalidArgumentError(absl::StrCat("device: ", name.status().message()));
    device = name->text;
  }
  absl::MutexLock lock(&records_.mu());
  absl::StatusOr<HistoryIndex::Page> page = records_.history().Select(request, [&](const std::string& id) {
    records_.mu().AssertHeld();  // called by Select, under the lock taken above
    if (!InStates(request.states(), records_.states().at(id))) return false;
    const v1::Job* job = records_.Find(id);
    if (job == nullptr || !SeesAllOf(job->submitter(), by)) return false;  // others' labels tell nothing either
    if (device.empty()) return true;
    const std::vector<std::string> ran_on = spec::JobDeviceNames(job->spec());
    return std::find(ran_on.begin(), ran_on.end(), device) != ran_on.end();
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

absl::StatusOr<v1::Job> Daemon::Cancel(const v1::JobRequest& request, const Caller& caller) {
  {
    absl::MutexLock lock(&records_.mu());
    absl::StatusOr<const v1::Job*> job = FindFor(request, JobAction::kCancel, caller);
    if (!job.ok()) return job.status();
    if (IsFinished((*job)->state()))
      return absl::FailedPreconditionError(absl::StrCat("job ", (*job)->id(), " is already ",
                                                        StateName((*job)->state()),
                                                        "; only queued or running jobs can be cancelled"));
  }
  if (absl::Status s = backend_->Cancel(request.id(), caller.user); !s.ok()) return s;
  absl::MutexLock lock(&records_.mu());
  return Snapshot(*records_.Find(request.id()));
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
  backend_->Describe(&info);
  absl::MutexLock lock(&records_.mu());
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
  if (!backend_) return;  // Open failed before it had one
  backend_->Stop(reason);
  absl::MutexLock lock(&records_.mu());
  records_.Flush();
  stopped_ = true;
  records_.NotifyChanged();
  spdlog::info("stopped: {} jobs stay queued", backend_->queued());
}

}  // namespace torchscan::daemon
