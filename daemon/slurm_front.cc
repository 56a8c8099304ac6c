#include "daemon/slurm_front.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <spdlog/spdlog.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/noise_floor.h"
#include "core/timestamp.h"
#include "daemon/job_progress.h"
#include "daemon/node_outcome.h"
#include "io/file_io.h"
#include "io/proto_json.h"
#include "spec/job_spec.h"
#include "worker/state_folder.h"
#include "worker/worker_protocol.h"

namespace torchscan::daemon {
namespace {

namespace fs = std::filesystem;

constexpr absl::Duration kPollInterval = absl::Milliseconds(500);
// Polls a job may go without an outcome file once Slurm ended it (or forgot it), before the
// front says Slurm ended it: the node-side program writes the file before it exits, so this
// only covers shared storage that shows files late.
constexpr int kPollsBeforeEndedBySlurm = 4;
constexpr double kSlurmCommandTimeoutS = 60;
constexpr absl::Duration kCancelWait = absl::Seconds(10);

// The new whole lines of `path` from `*offset` on; *offset moves past them.
std::vector<std::string> ReadNewLines(const std::string& path, int64_t* offset) {
  std::vector<std::string> lines;
  std::ifstream in(path, std::ios::binary);
  if (!in) return lines;
  in.seekg(*offset);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // no newline yet: a line still being written
    *offset += static_cast<int64_t>(line.size()) + 1;
    lines.push_back(line);
  }
  return lines;
}

}  // namespace

SlurmFront::SlurmFront(const v1::DaemonConfig& config, JobRecords* records, const std::string& own_node_job)
    : config_(config), records_(records), programs_(NodeProgramsOf(config, own_node_job)) {}

SlurmFront::~SlurmFront() { Stop("the daemon was stopped"); }

std::string SlurmFront::SlurmDir(const std::string& id) const {
  return absl::StrCat(config_.state_dir(), "/", worker::kSlurmFolder, "/", id);
}

absl::Status SlurmFront::Prepare() {
  const std::string folder = absl::StrCat(config_.state_dir(), "/", worker::kSlurmFolder);
  std::error_code error;
  fs::create_directories(folder, error);
  ::chmod(folder.c_str(), 0711);
  v1::DaemonConfig nodes = config_;
  nodes.set_worker_path(programs_.worker);
  nodes.set_rss_child_path(programs_.rss_child);
  nodes.clear_cpu_set();  // Slurm gives the node's CPUs
  nodes.clear_listen();
  nodes.clear_tls();
  nodes.clear_token_file();
  return WriteFileAtomic(folder + "/" + worker::kNodeConfigFile, ToJson(nodes), 0644);
}

void SlurmFront::Start() {
  absl::MutexLock lock(&records_->mu());
  if (!thread_.joinable() && !stopping_) thread_ = std::thread(&SlurmFront::Loop, this);
}

void SlurmFront::Stop(const std::string&) {
  {
    absl::MutexLock lock(&records_->mu());
    stopping_ = true;
    wake_.SignalAll();
  }
  if (thread_.joinable()) thread_.join();
}

void SlurmFront::Restore(const v1::Job& job) {
  records_->mu().AssertHeld();
  followed_[job.id()].adopted = true;  // its record is added after this: SubmitAdopted reads it
}

bool SlurmFront::stopping() const {
  records_->mu().AssertHeld();
  return stopping_;
}

void SlurmFront::Loop() {
  SubmitAdopted();
  while (true) {
    Poll();
    absl::MutexLock lock(&records_->mu());
    if (!stopping_) wake_.WaitWithTimeout(&records_->mu(), kPollInterval);
    if (stopping_) return;
  }
}

void SlurmFront::SubmitAdopted() {
  std::vector<std::string> ids;  // adopted, never acknowledged by sbatch
  {
    absl::MutexLock lock(&records_->mu());
    for (auto& [id, f] : followed_) {
      if (!f.adopted) continue;
      f.adopted = false;
      f.slurm_id = records_->Find(id)->slurm_job_id();
      spdlog::info("job {} followed again after a restart ({})", id,
                   f.slurm_id.empty() ? "not yet handed to Slurm" : "Slurm job " + f.slurm_id);
      if (f.slurm_id.empty()) ids.push_back(id);
    }
  }
  if (ids.empty()) return;
  absl::StatusOr<std::string> listed = RunSlurm("squeue", SqueueArgs(config_.slurm().partition()), 60);
  const std::map<std::string, SlurmJobState> jobs = listed.ok() ? ParseSqueue(*listed) : decltype(jobs){};
  for (const std::string& id : ids) {
    std::string found;
    for (const auto& [slurm_id, job] : jobs)
      if (job.name == "torchscan-" + id && job.folder == SlurmDir(id)) found = slurm_id;
    if (!found.empty()) {
      absl::MutexLock lock(&records_->mu());
      followed_[id].slurm_id = found;
      v1::Job& job = *records_->Find(id);
      job.set_slurm_job_id(found);
      records_->Changed(job, true);
      spdlog::info("job {} found in Slurm as job {}", id, found);
      continue;
    }
    if (!listed.ok()) {
      spdlog::warn("job {}: not handed to Slurm again: cannot list Slurm's jobs: {}", id,
                   std::string(listed.status().message()));
    }
    {
      absl::MutexLock lock(&records_->mu());
      followed_.erase(id);  // Submit follows it again
    }
    (void)HandOver(id);  // a refusal is recorded on the job
  }
}

absl::Status SlurmFront::HandOver(const std::string& id) {
  v1::JobSpec spec;
  {
    absl::MutexLock lock(&records_->mu());
    v1::Job& job = *records_->Find(id);
    spec = job.spec();
    followed_[id] = Followed{};
    job.set_phase("handing to Slurm");
    records_->NotifyChanged();
  }
  const std::string dir = SlurmDir(id);
  std::error_code error;
  fs::create_directories(dir, error);
  ::chmod(dir.c_str(), 0700);
  const SbatchRequest request{
      id,
      dir,
      spec.node(),
      programs_.node_job,
      absl::StrCat(config_.state_dir(), "/", worker::kSlurmFolder, "/", worker::kNodeConfigFile),
      spec::GpusNeeded(spec)};
  absl::StatusOr<std::string> out = RunSlurm("sbatch", SbatchArgs(config_.slurm(), request), kSlurmCommandTimeoutS);
  absl::StatusOr<std::string> slurm_id = out.ok() ? ParseSbatchId(*out) : out.status();
  absl::MutexLock lock(&records_->mu());
  v1::Job& job = *records_->Find(id);
  if (!slurm_id.ok()) {
    followed_.erase(id);
    JobRunOutcome refused;
    refused.error = absl::StrCat("Slurm refused the job: ", slurm_id.status().message());
    RecordEnd(*records_, id, refused, v1::Job::failed);
    spdlog::warn("job {}: {}", id, refused.error);
    // FailedPrecondition, not Unavailable: the daemon answers; Slurm behind it does not.
    return absl::FailedPreconditionError(absl::StrCat("job ", id, " was not queued: ", refused.error));
  }
  followed_[id].slurm_id = *slurm_id;
  job.set_slurm_job_id(*slurm_id);
  job.set_phase("Slurm queue");
  records_->Changed(job, true);
  spdlog::info("job {} handed to Slurm as job {} (partition {})", id, *slurm_id, config_.slurm().partition());
  return absl::OkStatus();
}

absl::Status SlurmFront::Cancel(const std::string& id, const std::string& by) {
  std::string slurm_id;
  {
    absl::MutexLock lock(&records_->mu());
    auto it = followed_.find(id);
    if (it == followed_.end()) return absl::FailedPreconditionError(absl::StrCat("job ", id, " has finished"));
    if (it->second.slurm_id.empty())
      return absl::FailedPreconditionError(
          absl::StrCat("job ", id, " is being handed to Slurm; cancel it again in a moment"));
    it->second.cancel_by = by;
    slurm_id = it->second.slurm_id;
  }
  spdlog::info("job {} cancel requested by {}: scancel {}", id, by, slurm_id);
  if (absl::StatusOr<std::string> s = RunSlurm("scancel", {slurm_id}, kSlurmCommandTimeoutS); !s.ok()) {
    absl::MutexLock lock(&records_->mu());
    if (auto it = followed_.find(id); it != followed_.end()) it->second.cancel_by.clear();
    return absl::FailedPreconditionError(absl::StrCat("job ", id, " was not cancelled: ", s.status().message()));
  }
  absl::MutexLock lock(&records_->mu());
  const absl::Time deadline = absl::Now() + kCancelWait;
  while (followed_.count(id) && !records_->WaitForChange(deadline)) {
  }
  return absl::OkStatus();
}

void SlurmFront::Poll() {
  std::vector<Seen> jobs;
  {
    absl::MutexLock lock(&records_->mu());
    for (const auto& [id, f] : followed_) {
      if (f.slurm_id.empty()) continue;  // sbatch has not answered
      Seen seen;
      seen.id = id;
      seen.slurm_id = f.slurm_id;
      seen.log_offset = f.log_offset;
      jobs.push_back(std::move(seen));
    }
  }
  if (jobs.empty()) return;
  absl::StatusOr<std::string> listed = RunSlurm("squeue", SqueueArgs(config_.slurm().partition()), 30);
  // Logged when it starts failing or fails differently, not every half second.
  const std::string error = listed.ok() ? "" : std::string(listed.status().message());
  if (!error.empty() && error != last_poll_error_) spdlog::warn("cannot follow Slurm's jobs: {}", error);
  if (error.empty() && !last_poll_error_.empty()) spdlog::info("following Slurm's jobs again");
  last_poll_error_ = error;
  const std::map<std::string, SlurmJobState> states = listed.ok() ? ParseSqueue(*listed) : decltype(states){};
  bool need_reasons = false;
  for (Seen& seen : jobs) {
    if (auto it = states.find(seen.slurm_id); it != states.end()) {
      seen.known = true;
      seen.slurm = it->second;
      need_reasons = need_reasons || seen.slurm.state == "NODE_FAIL";
    }
    const std::string dir = SlurmDir(seen.id);
    seen.lines = ReadNewLines(dir + "/" + worker::kNodeLogFile, &seen.log_offset);
    if (absl::StatusOr<std::string> text = ReadFile(dir + "/" + worker::kNodeOutcomeFile); text.ok())
      seen.outcome = *std::move(text);
  }
  std::map<std::string, std::string> reasons;
  if (need_reasons)
    if (absl::StatusOr<std::string> nodes = RunSlurm("sinfo", SinfoArgs(config_.slurm().partition()), 30); nodes.ok())
      ParseSinfo(*nodes, &reasons);
  absl::MutexLock lock(&records_->mu());
  for (const Seen& seen : jobs) Apply(seen, listed.ok(), reasons);
}

void SlurmFront::Apply(const Seen& seen, bool squeue_ok, const std::map<std::string, std::string>& node_reasons) {
  records_->mu().AssertHeld();
  auto it = followed_.find(seen.id);
  if (it == followed_.end()) return;
  Followed& f = it->second;
  f.log_offset = seen.log_offset;
  v1::Job& job = *records_->Find(seen.id);
  const std::string node = seen.known && !seen.slurm.node.empty() ? seen.slurm.node : job.node();
  const bool runs = seen.known && seen.slurm.state != "PENDING";
  if (job.state() == v1::Job::queued && (runs || !seen.lines.empty())) {
    job.set_state(v1::Job::running);
    job.set_started_at(NowRfc3339());
    job.set_node(node);
    job.set_worker(absl::StrCat("Slurm job ", f.slurm_id, " on node ", node));
    job.set_phase("starting worker");
    records_->BeginPhase(job, "worker start (Slurm node " + node + ")");
    records_->Changed(job, true);
  } else if (job.state() == v1::Job::queued && seen.known) {
    const std::string phase = absl::StrCat("Slurm queue: ", seen.slurm.reason);
    if (job.phase() != phase) {
      job.set_phase(phase);
      records_->NotifyChanged();
    }
  }
  for (const std::string& line : seen.lines) {
    if (absl::StartsWith(line, "node ") && job.node() != line.substr(5)) {
      job.set_node(line.substr(5));
      job.set_worker(absl::StrCat("Slurm job ", f.slurm_id, " on node ", job.node()));
      records_->Changed(job, true);
    }
    std::optional<worker::WorkerLine> parsed = worker::ParseWorkerLine(line);
    if (parsed && parsed->kind == worker::WorkerLine::Kind::kPhase) RecordPhase(*records_, seen.id, parsed->phase);
    if (parsed && parsed->kind == worker::WorkerLine::Kind::kBlocks) RecordBlocks(*records_, seen.id, parsed->blocks);
  }
  const bool slurm_ended = squeue_ok && (!seen.known || IsSlurmStateFinal(seen.slurm.state));
  if (seen.outcome) {
    std::optional<NodeOutcome> parsed = ParseNodeOutcome(*seen.outcome);
    // Killed by Slurm: wait until Slurm says why (the node went down, the time limit), unless
    // the user cancelled it.
    if (parsed && parsed->outcome.killed && f.cancel_by.empty() && !slurm_ended) return;
    JobRunOutcome outcome = parsed ? parsed->outcome : JobRunOutcome{};
    if (!parsed) outcome.error = "the node's outcome file is damaged: " + SlurmDir(seen.id) + "/node-outcome.txt";
    if (outcome.state == v1::Job::succeeded) {
      absl::StatusOr<v1::JobResult> result = records_->store().LoadResult(seen.id);
      if (result.ok()) {
        outcome.result = *std::move(result);
      } else {
        outcome.state = v1::Job::failed;
        outcome.error = absl::StrCat("the job succeeded on node ", node,
                                     " but its result is unusable here: ", result.status().message());
      }
    } else if (outcome.killed) {
      outcome.killed = !f.cancel_by.empty();  // else Slurm stopped it: a failure, with Slurm's reason
      outcome.error = EndedBySlurm(seen.id, f, seen, node_reasons);
    }
    Finish(seen.id, outcome, v1::Job::cancelled);
    return;
  }
  if (!slurm_ended || ++f.polls_gone < kPollsBeforeEndedBySlurm) return;
  JobRunOutcome outcome;
  outcome.killed = !f.cancel_by.empty() || (seen.known && seen.slurm.state == "CANCELLED");
  outcome.error = EndedBySlurm(seen.id, f, seen, node_reasons);
  Finish(seen.id, outcome, v1::Job::cancelled);
}

std::string SlurmFront::EndedBySlurm(const std::string& id, const Followed& f, const Seen& seen,
                                     const std::map<std::string, std::string>& node_reasons) const {
  if (!f.cancel_by.empty())
    return absl::StrCat("cancelled by ", f.cancel_by, " (scancel of Slurm job ", f.slurm_id, ")");
  const std::string& node = seen.slurm.node;
  const std::string on = node.empty() ? "" : " on node " + node;
  if (!seen.known)
    return absl::StrCat("Slurm job ", f.slurm_id, " ended", on, " without a result, and Slurm no longer knows how; ",
                        "see ", SlurmDir(id), "/", worker::kNodeLogFile);
  const std::string& state = seen.slurm.state;
  if (state == "NODE_FAIL") {
    auto reason = node_reasons.find(node);
    return absl::StrCat("Slurm job ", f.slurm_id, " failed: node ", node, " went down while it ran",
                        reason != node_reasons.end() ? " (" + reason->second + ")" : "",
                        "; it was not requeued: submit it again");
  }
  if (state == "TIMEOUT")
    return absl::StrCat("Slurm job ", f.slurm_id, on, " ran past its time limit (slurm.time_limit ",
                        config_.slurm().time_limit(), ")");
  if (state == "CANCELLED")
    return absl::StrCat("Slurm job ", f.slurm_id, on, " was cancelled in Slurm (scancel outside TorchScan)");
  return absl::StrCat("Slurm job ", f.slurm_id, " ended ", state, on, " (", seen.slurm.reason,
                      ") without a result; see ", SlurmDir(id), "/", worker::kNodeLogFile);
}

void SlurmFront::Finish(const std::string& id, JobRunOutcome& outcome, v1::Job::State killed_state) {
  records_->mu().AssertHeld();
  RecordEnd(*records_, id, outcome, killed_state);
  followed_.erase(id);
  records_->NotifyChanged();
}

void SlurmFront::Describe(v1::DaemonInfo* info) const {
  absl::StatusOr<std::string> out = RunSlurm("sinfo", SinfoArgs(config_.slurm().partition()), 30);
  if (!out.ok()) spdlog::warn("cannot list the partition's nodes: {}", std::string(out.status().message()));
  std::vector<v1::SlurmNode> nodes = out.ok() ? ParseSinfo(*out) : std::vector<v1::SlurmNode>();
  const std::string now = NowRfc3339();
  absl::MutexLock lock(&records_->mu());
  for (v1::SlurmNode& node : nodes) {
    if (std::optional<v1::NoiseFloor> floor = records_->noise_floor(node.name()))
      *node.mutable_noise_floor() = AgedNoiseFloor(*floor, now, config_.noise_floor_max_age_s());
    *info->add_nodes() = std::move(node);
  }
  info->set_queued(queued());
  info->set_running_job(absl::StrJoin(running(), ","));
}

int SlurmFront::queued() const {
  records_->mu().AssertHeld();
  int n = 0;
  for (const auto& [id, f] : followed_)
    if (const v1::Job* job = records_->Find(id); job && job->state() == v1::Job::queued) ++n;
  return n;
}

std::vector<std::string> SlurmFront::running() const {
  records_->mu().AssertHeld();
  std::vector<std::string> ids;
  for (const auto& [id, f] : followed_)
    if (const v1::Job* job = records_->Find(id); job && job->state() == v1::Job::running) ids.push_back(id);
  return ids;
}

}  // namespace torchscan::daemon
