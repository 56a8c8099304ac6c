#include "daemon/daemon.h"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/environment.h"
#include "core/noise_floor.h"
#include "core/phase_timeline.h"
#include "core/timestamp.h"
#include "core/version.h"
#include "daemon/access_rules.h"
#include "spec/job_spec.h"
#include "daemon/result_summary.h"
#include "worker/state_folder.h"

namespace torchscan::daemon {
namespace {

absl::Status UnknownJob(const std::string& id) {
  return absl::NotFoundError(
      absl::StrCat("id: no job ", spec::QuoteForMessage(id), " on this daemon (list them with `torchscan-client jobs list`)"));
}

// At most 2000 bytes, marked when cut.
std::string ShortenForStatus(const std::string& text) {
  constexpr size_t kMax = 2000;
  if (text.size() <= kMax) return text;
  return absl::StrCat(text.substr(0, kMax), "... (", text.size(), " bytes; jobs show ID has all of it)");
}

bool Finished(v1::Job::State state) {
  return state != v1::Job::queued && state != v1::Job::running && state != v1::Job::state_unspecified;
}

std::string StateName(v1::Job::State state) { return v1::Job::State_Name(state); }

bool SameProgress(const v1::Job& a, const v1::Job& b) {
  return a.state() == b.state() && a.phase() == b.phase() && a.blocks_done() == b.blocks_done() &&
         a.queue_position() == b.queue_position() && a.worker_pid() == b.worker_pid() && a.error() == b.error();
}

// What changed, e.g. "state running; phase build baseline".
std::string DescribeChange(const v1::Job& before, const v1::Job& after) {
  std::vector<std::string> parts;
  if (before.state() != after.state())
    parts.push_back(absl::StrCat("state ", StateName(after.state()), after.error().empty() ? "" : ": " + after.error()));
  if (before.phase() != after.phase()) parts.push_back("phase " + after.phase());
  if (before.queue_position() != after.queue_position())
    parts.push_back(absl::StrCat("queue position ", after.queue_position()));
  if (before.blocks_done() != after.blocks_done() && after.blocks_done() > 0)
    parts.push_back(absl::StrCat("blocks ", after.blocks_done()));
  if (before.worker_pid() != after.worker_pid() && after.worker_pid() > 0)
    parts.push_back(absl::StrCat("worker pid ", after.worker_pid()));
  return parts.empty() ? "updated" : absl::StrJoin(parts, "; ");
}

// A ListJobs / History request's state filter: `states` empty takes every state.
bool InStates(const google::protobuf::RepeatedField<int>& states, v1::Job::State state) {
  return states.empty() || std::find(states.begin(), states.end(), state) != states.end();
}

}  // namespace

Daemon::Daemon(const v1::DaemonConfig& config)
    : config_(config),
      run_options_(RunOptionsOf(config)),
      started_at_(NowRfc3339()),
      store_(config.state_dir()),
      spare_(run_options_, !config.no_spare_worker(), config.state_dir() + "/" + worker::kSpareWorkerStderrFile),
      queue_(config.limits().max_queue_length()) {}

Daemon::~Daemon() { Shutdown("the daemon was stopped"); }

absl::StatusOr<std::unique_ptr<Daemon>> Daemon::Open(const v1::DaemonConfig& config) {
  std::unique_ptr<Daemon> daemon(new Daemon(config));
  if (absl::Status s = daemon->store_.Open(); !s.ok()) return s;
  JobStore::Loaded loaded = daemon->store_.LoadAll(NowRfc3339());
  for (const std::string& problem : loaded.problems) spdlog::warn("start-up: {}", problem);
  for (const std::string& id : loaded.interrupted) spdlog::warn("job {} interrupted: it was running when the daemon stopped", id);
  if (!loaded.summarized.empty())  // once per job an older daemon finished: one line, not thousands
    spdlog::info("{} finished job(s) got their history summary from their results ({} to {})",
                 loaded.summarized.size(), loaded.summarized.front(), loaded.summarized.back());
  if (absl::StatusOr<v1::NoiseFloor> floor = daemon->store_.LoadNoiseFloor(); floor.ok()) {
    daemon->noise_floor_ = *std::move(floor);
    spdlog::info("noise floor of {} (job {}) loaded", daemon->noise_floor_->measured_at(),
                 daemon->noise_floor_->job_id());
  } else if (floor.status().code() != absl::StatusCode::kNotFound) {
    // Damaged: reported and left alone (the next calibration replaces it); never fatal.
    spdlog::warn("start-up: no noise floor: {}", std::string(floor.status().message()));
    loaded.problems.push_back(std::string(floor.status().message()));
  }
  daemon->load_problems_ = std::move(loaded.problems);
  daemon->last_number_ = loaded.last_number;
  for (v1::Job& job : loaded.jobs) {
    if (job.state() == v1::Job::queued) {
      daemon->queue_.Restore(job.id());
      spdlog::info("job {} queued again after a restart", job.id());
    }
    const std::string id = job.id();
    daemon->history_.Add(job.spec().label(), id);
    // The previous daemon's clock readings are gone: a restored job's timeline starts now.
    if (job.state() == v1::Job::queued) daemon->BeginPhase(job, "queue wait", NowRfc3339());
    daemon->jobs_.emplace(id, std::move(job));
  }
  spdlog::info("state_dir {}: {} jobs loaded ({} from the record cache, {} parsed), {} queued", config.state_dir(),
               daemon->jobs_.size(), loaded.from_cache, loaded.from_json, daemon->queue_.size());
  return daemon;
}

void Daemon::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!executor_.joinable() && !stopping_) executor_ = std::thread(&Daemon::ExecutorLoop, this);
}

v1::Job Daemon::Snapshot(const v1::Job& job) const {
  v1::Job copy = job;
  copy.set_queue_position(job.state() == v1::Job::queued ? queue_.Position(job.id()) : 0);
  return copy;
}

absl::StatusOr<v1::Job*> Daemon::Find(const std::string& id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return UnknownJob(id);
  return &it->second;
}

void Daemon::Changed(const v1::Job& job, bool persist) {
  if (persist) {
    StoreUnsaved();
    if (absl::Status s = store_.SaveJob(job); !s.ok()) {
      spdlog::error("job {}: could not store its record (kept in memory, stored again with the next record): {}",
                    job.id(), std::string(s.message()));
      unsaved_.insert(job.id());
    } else {
      unsaved_.erase(job.id());
    }
  }
  changed_.notify_all();
}

void Daemon::StoreUnsaved() {
  for (auto it = unsaved_.begin(); it != unsaved_.end();) {
    if (!store_.SaveJob(jobs_.at(*it)).ok()) return;  // still no room: keep them all for later
    spdlog::info("job {}: its record is stored now", *it);
    it = unsaved_.erase(it);
  }
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
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return absl::UnavailableError("torchscand is shutting down; submit again once it has restarted");
  job.set_id(JobStore::JobId(last_number_ + 1));
  job.set_submitted_at(NowRfc3339());
  if (absl::Status s = queue_.Push(job.id()); !s.ok()) {
    spdlog::info("refused a job from {}: {}", submitter, std::string(s.message()));
    return s;
  }
  ++last_number_;
  BeginPhase(job, "queue wait", job.submitted_at());
  absl::Status stored = store_.WriteSpec(job.id(), spec);
  if (stored.ok()) stored = store_.SaveJob(job);
  if (absl::Status s = stored; !s.ok()) {
    queue_.Remove(job.id());
    phases_.erase(job.id());
    spdlog::error("job {}: could not be stored: {}", job.id(), std::string(s.message()));
    if (absl::Status discarded = store_.DiscardRefused(job.id()); !discarded.ok())
      spdlog::warn("job {}: {}", job.id(), std::string(discarded.message()));
    // Usually a full or read-only state folder: the job is refused, nothing stored is touched.
    const int64_t free_bytes = store_.FreeBytes();
    return absl::ResourceExhaustedError(absl::StrCat(
        "state_dir ", config_.state_dir(), ": the job could not be stored (", s.message(),
        free_bytes >= 0 ? absl::StrCat("; ", free_bytes, " bytes free there") : "",
        "); nothing was queued; free space in the daemon's state_dir (or ask its admin) and submit again"));
  }
  StoreUnsaved();  // records that found no room earlier may fit now
  const std::string& id = job.id();
  jobs_[id] = job;
  history_.Add(job.spec().label(), id);
  spdlog::info("job {} queued by {} at position {} ({}{})", id, submitter, queue_.Position(id),
               job.spec().has_compare() ? "compare" : job.spec().has_calibrate() ? "calibrate" : "measure",
               job.spec().label().empty() ? "" : ", label \"" + job.spec().label() + "\"");
  work_.notify_one();
  changed_.notify_all();
  return Snapshot(jobs_[id]);
}

absl::StatusOr<v1::Job> Daemon::GetJob(const v1::JobRequest& request) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = jobs_.find(request.id());
  if (it == jobs_.end()) return UnknownJob(request.id());
  return Snapshot(it->second);
}

absl::StatusOr<v1::ListJobsResponse> Daemon::ListJobs(const v1::ListJobsRequest& request) const {
  if (request.limit() < 0) return absl::InvalidArgumentError(absl::StrCat("limit: ", request.limit(), " is negative"));
  v1::ListJobsResponse response;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = jobs_.rbegin(); it != jobs_.rend(); ++it) {
    if (request.limit() > 0 && response.jobs_size() >= request.limit()) break;
    const v1::Job& job = it->second;
    if (!InStates(request.states(), job.state())) continue;
    v1::Job* listed = response.add_jobs();
    *listed = Snapshot(job);
    listed->clear_timeline();  // up to a hundred spans a job: GetJob has them
  }
  return response;
}

absl::StatusOr<v1::HistoryResponse> Daemon::History(const v1::HistoryRequest& request) const {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<HistoryIndex::Page> page = history_.Select(
      request, [&](const std::string& id) { return InStates(request.states(), jobs_.at(id).state()); });
  if (!page.ok()) return page.status();
  v1::HistoryResponse response;
  for (const std::string& id : page->ids) {
    v1::Job* listed = response.add_jobs();
    *listed = Snapshot(jobs_.at(id));
    listed->clear_timeline();  // GetJob has it
  }
  response.set_next_page_token(page->next_page_token);
  return response;
}

absl::StatusOr<v1::Job> Daemon::Cancel(const v1::JobRequest& request, const Caller& caller) {
  std::unique_lock<std::mutex> lock(mu_);
  absl::StatusOr<v1::Job*> found = Find(request.id());
  if (!found.ok()) return found.status();
  v1::Job& job = **found;
  if (absl::Status allowed = MayCancel(job.id(), job.submitter(), caller, config_.admin_group()); !allowed.ok()) {
    spdlog::info("job {}: cancel by {} refused (submitted by {})", job.id(), caller.user, job.submitter());
    return allowed;
  }
  const std::string& by = caller.user;
  if (job.state() == v1::Job::queued) {
    queue_.Remove(job.id());
    job.set_state(v1::Job::cancelled);
    job.set_error(absl::StrCat("cancelled by ", by, " while queued"));
    job.set_finished_at(NowRfc3339());
    EndPhases(job);
    spdlog::info("job {} cancelled by {} while queued", job.id(), by);
    Changed(job, true);
    return Snapshot(job);
  }
  if (job.state() == v1::Job::running && job.id() == running_id_ && running_control_) {
    if (!running_control_->killed()) {
      running_cancelled_ = true;
      running_control_->Kill(absl::StrCat("cancelled by ", by, " while running (worker killed with SIGKILL)"));
      spdlog::info("job {} cancel requested by {}: killing its worker", job.id(), by);
    }
    const std::string id = job.id();
    changed_.wait_for(lock, std::chrono::seconds(10), [&] { return jobs_.at(id).state() != v1::Job::running; });
    return Snapshot(jobs_.at(id));
  }
  return absl::FailedPreconditionError(absl::StrCat("job ", job.id(), " is already ", StateName(job.state()),
                                                    "; only queued or running jobs can be cancelled"));
}

absl::StatusOr<v1::JobResult> Daemon::FetchResult(const v1::JobRequest& request) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = jobs_.find(request.id());
    if (it == jobs_.end()) return UnknownJob(request.id());
    const v1::Job job = Snapshot(it->second);
    switch (job.state()) {
      case v1::Job::succeeded:
        break;
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
  absl::StatusOr<v1::JobResult> result = store_.LoadResult(request.id());
  if (result.status().code() == absl::StatusCode::kNotFound)
    return absl::DataLossError(absl::StrCat("job ", request.id(), " succeeded but ", result.status().message()));
  return result;
}

absl::StatusOr<v1::DaemonInfo> Daemon::Info(const v1::InfoRequest&) const {
  v1::DaemonInfo info;
  info.set_version(kTorchScanVersion);
  *info.mutable_environment() = CaptureEnvironment();
  *info.mutable_config() = config_;
  info.set_started_at(started_at_);
  std::lock_guard<std::mutex> lock(mu_);
  info.set_queued(static_cast<int32_t>(queue_.size()));
  info.set_running_job(running_id_);
  info.set_spare_worker_pid(spare_.pid());
  info.set_spare_worker_rss_bytes(spare_.rss_bytes());
  info.set_spare_worker_ready(spare_.ready());
  if (noise_floor_)
    *info.mutable_noise_floor() = AgedNoiseFloor(*noise_floor_, NowRfc3339(), config_.noise_floor_max_age_s());
  return info;
}

absl::Status Daemon::Watch(const v1::JobRequest& request, const WatchSink& sink) const {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = jobs_.find(request.id());
  if (it == jobs_.end()) return UnknownJob(request.id());
  v1::Job last = Snapshot(it->second);
  v1::JobEvent event;
  *event.mutable_job() = last;
  event.set_message(absl::StrCat("state ", StateName(last.state())));
  while (true) {
    lock.unlock();
    if (!sink.write(event)) return absl::CancelledError("the client stopped watching");
    lock.lock();
    if (Finished(last.state())) return absl::OkStatus();
    while (true) {
      changed_.wait_for(lock, std::chrono::milliseconds(200));
      if (sink.cancelled && sink.cancelled()) return absl::CancelledError("the client stopped watching");
      const v1::Job current = Snapshot(jobs_.at(request.id()));
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
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopping_ = true;
    if (running_control_ && !running_control_->killed()) {
      running_cancelled_ = false;
      running_control_->Kill(reason);
    }
    work_.notify_all();
    changed_.notify_all();
  }
  if (executor_.joinable()) executor_.join();
  std::lock_guard<std::mutex> lock(mu_);
  StoreUnsaved();
  for (const std::string& id : unsaved_)
    spdlog::error("job {}: its last record could not be stored; the state_dir holds an older one", id);
  RefreshRecordCache(true);
  stopped_ = true;
  changed_.notify_all();
  spdlog::info("stopped: {} jobs stay queued", queue_.size());
}

// How often an idle executor looks at the spare worker (one that died is replaced).
constexpr std::chrono::seconds kIdleSpareCheck(1);

void Daemon::ExecutorLoop() {
  bool after_job = false;
  int last_rss_trials = 0;  // of the job that ran last: the next spare prepares as many
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) break;  // no spare for a daemon on its way out
    }
    // Between jobs, never beside one: the spare starts here (its loading competes with
    // nothing timed), and one that died while idle is noticed and replaced.
    spare_.Refill(after_job, last_rss_trials);
    after_job = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_.wait_for(lock, kIdleSpareCheck, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) break;
      if (queue_.empty()) continue;
    }
    // Looked at now (a spare killed a moment ago is seen), outside mu_ (reaping one takes time).
    const std::string no_spare = spare_.Unavailable();
    std::string id;
    v1::JobSpec spec;
    auto control = std::make_shared<WorkerControl>();
    {
      // Taking the next job and marking it running is one step, so that Shutdown either
      // finds it queued or finds its control to kill.
      std::unique_lock<std::mutex> lock(mu_);
      if (stopping_) break;
      if (queue_.empty()) continue;  // cancelled meanwhile
      id = *queue_.Pop();
      v1::Job& job = jobs_.at(id);
      job.set_state(v1::Job::running);
      job.set_started_at(NowRfc3339());
      job.set_phase("starting worker");
      job.set_blocks_done(0);
      job.set_worker(no_spare.empty() ? "warm spare" : "cold: " + no_spare);
      BeginPhase(job, "worker start (" + job.worker() + ")");
      running_id_ = id;
      running_control_ = control;
      running_cancelled_ = false;
      spec = job.spec();
      Changed(job, true);
    }
    RunOne(id, spec, control.get());
    after_job = true;
    last_rss_trials = RssTrialsOf(spec);
  }
  spare_.Stop();  // on the thread that started it; its whole process group is gone after
}

void Daemon::RunOne(const std::string& id, const v1::JobSpec& spec, WorkerControl* control) {
  std::unique_ptr<SpareWorker> spare;
  bool wants_spare = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    wants_spare = jobs_.at(id).worker() == "warm spare";
  }
  spdlog::info("job {} started{}", id, wants_spare ? " on the warm spare worker" : "");
  if (wants_spare) {
    std::string why_not;
    spare = spare_.Take(control, config_.limits().job_wall_time_s(), &why_not);
    if (!spare && !control->killed()) FallBackToColdWorker(id, why_not);  // it died while loading
  }
  JobRunCallbacks callbacks;
  callbacks.on_start = [&](int pid) {
    std::lock_guard<std::mutex> lock(mu_);
    v1::Job& job = jobs_.at(id);
    job.set_worker_pid(pid);
    // A cold worker runs (exec succeeded): until its first line it loads its libraries,
    // LibTorch above all, runs their initializers and reads its spec. The spare has loaded:
    // its handoff phase goes on until its first line.
    if (!spare) BeginPhase(job, "LibTorch load");
    changed_.notify_all();
  };
  callbacks.on_rss_children = [&](int count) {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = phases_.find(id); it != phases_.end()) {
      it->second.RssChildrenStarted(count);
      *jobs_.at(id).mutable_timeline() = it->second.Snapshot();
    }
  };
  callbacks.on_phase = [&](const std::string& phase) {
    spdlog::info("job {} phase {}", id, phase);
    std::lock_guard<std::mutex> lock(mu_);
    v1::Job& job = jobs_.at(id);
    job.set_phase(phase);
    job.set_blocks_done(0);
    BeginPhase(job, phase);
    changed_.notify_all();
  };
  callbacks.on_blocks = [&](int64_t blocks) {
    std::lock_guard<std::mutex> lock(mu_);
    v1::Job& job = jobs_.at(id);
    job.set_blocks_done(blocks);
    if (auto it = phases_.find(id); it != phases_.end()) *job.mutable_timeline() = it->second.Snapshot();
    changed_.notify_all();
  };
  JobRunOutcome outcome = RunJob(store_, id, spec, run_options_, control, callbacks, spare.get());
  const bool ran_on_spare = spare != nullptr;
  spare.reset();  // used up (RunJob reaped it)
  if (ran_on_spare && outcome.died_before_first_line && !control->killed()) {
    // The spare died as it was handed the job (killed while idle a moment before the job
    // came, unseen yet): the job never began, so it gets the cold worker it would have had.
    spdlog::warn("job {}: the spare worker ended before it began the job ({}); running it on a cold worker", id,
                 outcome.error);
    FallBackToColdWorker(id, "the spare worker ended before it began the job: " + outcome.error);
    outcome = RunJob(store_, id, spec, run_options_, control, callbacks, nullptr);
  }

  std::lock_guard<std::mutex> lock(mu_);
  v1::Job& job = jobs_.at(id);
  job.set_worker_pid(0);
  job.set_finished_at(NowRfc3339());
  EndPhases(job);
  if (outcome.state == v1::Job::succeeded) {
    job.set_state(v1::Job::succeeded);
    job.set_phase("done");
    CompleteResult(id, job.timeline(), &outcome.result);
    if (std::optional<v1::ResultSummary> summary = SummaryOfResult(outcome.result)) *job.mutable_summary() = *summary;
    if (outcome.result.has_comparison()) {
      const v1::Comparison& c = outcome.result.comparison();
      job.set_latency_change(v1::Comparison::LatencyChange_Name(c.latency_change()));
      job.set_output_check(v1::OutputCheck::Status_Name(c.output_check().status()));
    }
    spdlog::info("job {} succeeded{}", id,
                 job.latency_change().empty() ? "" : absl::StrCat(": ", job.latency_change(), ", check ", job.output_check()));
  } else {
    job.set_state(!outcome.killed ? v1::Job::failed : running_cancelled_ ? v1::Job::cancelled : v1::Job::interrupted);
    job.set_error(outcome.error);
    spdlog::info("job {} {}: {}", id, StateName(job.state()), outcome.error);
  }
  running_id_.clear();
  running_control_.reset();
  Changed(job, true);
  RefreshRecordCache(false);
}

void Daemon::FallBackToColdWorker(const std::string& id, const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  v1::Job& job = jobs_.at(id);
  job.set_worker("cold: " + why);
  BeginPhase(job, "worker start (" + job.worker() + ")");
  Changed(job, true);
}

// Rewriting the cache costs a few tens of ms per 10,000 jobs, under mu_: not after each job.
constexpr std::chrono::minutes kRecordCacheInterval(5);

void Daemon::RefreshRecordCache(bool now_anyway) {
  const auto now = std::chrono::steady_clock::now();
  if (!now_anyway && now - cache_saved_at_ < kRecordCacheInterval) return;
  cache_saved_at_ = now;
  if (absl::Status s = store_.SaveCache(jobs_); !s.ok())
    spdlog::warn("the record cache could not be written (a restart parses the records): {}", std::string(s.message()));
}

void Daemon::BeginPhase(v1::Job& job, const std::string& phase, const std::string& submitted_at) {
  auto it = phases_.find(job.id());
  if (it == phases_.end()) it = phases_.try_emplace(job.id(), SteadyClock(), submitted_at).first;
  it->second.Begin(phase);
  *job.mutable_timeline() = it->second.Snapshot();
}

void Daemon::EndPhases(v1::Job& job) {
  auto it = phases_.find(job.id());
  if (it == phases_.end()) return;
  it->second.End();
  *job.mutable_timeline() = it->second.Snapshot();
  phases_.erase(it);
}

void Daemon::CompleteResult(const std::string& id, const v1::Timeline& job_timeline, v1::JobResult* result) {
  if (result->has_calibration()) {
    result->mutable_calibration()->mutable_noise_floor()->set_job_id(id);
    v1::NoiseFloor floor = result->calibration().noise_floor();
    if (absl::Status s = store_.SaveResult(id, *result); !s.ok())
      spdlog::warn("job {}: its result keeps no job_id: {}", id, std::string(s.message()));
    if (absl::Status s = store_.SaveNoiseFloor(floor); !s.ok())
      spdlog::error("job {}: its noise floor could not be stored (kept until the daemon stops; the state folder keeps "
                    "the previous one): {}",
                    id, std::string(s.message()));
    noise_floor_ = std::move(floor);
    return;
  }
  const std::string now = NowRfc3339();
  const double max_age_s = config_.noise_floor_max_age_s();
  if (result->has_comparison()) {
    v1::Comparison* c = result->mutable_comparison();
    if (noise_floor_)
      *c->mutable_noise_floor() = AttachNoiseFloor(*noise_floor_, SettingsOfComparison(*c), now, max_age_s);
    *c->mutable_job_timeline() = job_timeline;
  } else if (result->has_report()) {
    v1::BenchmarkReport* r = result->mutable_report();
    if (noise_floor_) *r->mutable_noise_floor() = AttachNoiseFloor(*noise_floor_, SettingsOfReport(*r), now, max_age_s);
    *r->mutable_job_timeline() = job_timeline;
  } else {
    return;
  }
  if (absl::Status s = store_.SaveResult(id, *result); !s.ok())
    spdlog::error("job {}: the noise floor and job timeline could not be added to its result (the result stays "
                  "without them): {}",
                  id, std::string(s.message()));
}

}  // namespace torchscan::daemon
