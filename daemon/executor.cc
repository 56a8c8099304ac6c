#include "daemon/executor.h"

#include <malloc.h>

#include <utility>

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "core/timestamp.h"
#include "daemon/job_progress.h"
#include "worker/state_folder.h"
#include "worker/worker_protocol.h"

namespace torchscan::daemon {

Executor::Executor(const v1::DaemonConfig& config, JobRecords* records, const JobIsolation& isolation)
    : records_(records),
      run_options_(RunOptionsOf(config, isolation)),
      job_wall_time_s_(config.limits().job_wall_time_s()),
      spare_(run_options_, config.no_spare_worker() ? "no_spare_worker" : "",
             config.state_dir() + "/" + worker::kSpareWorkerStderrFile,
             config.state_dir() + "/" + worker::kSpareJobFolder),
      queue_(config.limits().max_queue_length(), config.limits().max_queued_per_user()) {}

Executor::~Executor() { Stop("the daemon was stopped"); }

void Executor::Start() {
  absl::MutexLock lock(&records_->mu());
  if (!thread_.joinable() && !stopping_) thread_ = std::thread(&Executor::Loop, this);
}

void Executor::Stop(const std::string& reason) {
  {
    absl::MutexLock lock(&records_->mu());
    stopping_ = true;
    if (running_control_ && !running_control_->killed()) {
      running_cancelled_ = false;
      running_control_->Kill(reason);
    }
    work_.SignalAll();
    records_->NotifyChanged();
  }
  if (thread_.joinable()) thread_.join();
}

absl::Status Executor::Enqueue(const std::string& id, const std::string& user) {
  records_->mu().AssertHeld();
  if (absl::Status s = queue_.Push(id, user); !s.ok()) return s;
  work_.Signal();
  return absl::OkStatus();
}

void Executor::Restore(const std::string& id, const std::string& user) {
  records_->mu().AssertHeld();
  queue_.Restore(id, user);
}

bool Executor::Dequeue(const std::string& id) {
  records_->mu().AssertHeld();
  return queue_.Remove(id);
}

int Executor::Position(const std::string& id) const {
  records_->mu().AssertHeld();
  return queue_.Position(id);
}

size_t Executor::queued() const {
  records_->mu().AssertHeld();
  return queue_.size();
}

std::string Executor::running_id() const {
  records_->mu().AssertHeld();
  return running_id_;
}

bool Executor::stopping() const {
  records_->mu().AssertHeld();
  return stopping_;
}

bool Executor::CancelRunning(const std::string& id, const std::string& by) {
  records_->mu().AssertHeld();
  if (id != running_id_ || !running_control_) return false;
  if (!running_control_->killed()) {
    running_cancelled_ = true;
    running_control_->Kill(absl::StrCat("cancelled by ", by, " while running (worker killed with SIGKILL)"));
    spdlog::info("job {} cancel requested by {}: killing its worker", id, by);
  }
  return true;
}

// How often an idle executor looks at the spare worker (one that died is replaced).
constexpr absl::Duration kIdleSpareCheck = absl::Seconds(1);

void Executor::Loop() {
  bool after_job = false;
  int last_early_children = 0;  // of the job that ran last: the next spare prepares as many
  while (true) {
    {
      absl::MutexLock lock(&records_->mu());
      if (stopping_) break;  // no spare for a daemon on its way out
    }
    // Between jobs, never beside one: the spare starts here (its loading competes with
    // nothing timed), and one that died while idle is noticed and replaced.
    spare_.Refill(after_job, last_early_children);
    after_job = false;
    {
      absl::MutexLock lock(&records_->mu());
      const absl::Time deadline = absl::Now() + kIdleSpareCheck;
      while (!stopping_ && queue_.empty() && !work_.WaitWithDeadline(&records_->mu(), deadline)) {
      }
      if (stopping_) break;
      if (queue_.empty()) continue;
    }
    // Looked at now (a spare killed a moment ago is seen), outside the lock (reaping one takes time).
    const std::string no_spare = spare_.Unavailable();
    std::string id;
    v1::JobSpec spec;
    auto control = std::make_shared<WorkerControl>();
    {
      // Taking the next job and marking it running is one step, so that Stop either finds it
      // queued or finds its control to kill.
      absl::MutexLock lock(&records_->mu());
      if (stopping_) break;
      if (!TakeNext(no_spare, control, &id, &spec)) continue;  // cancelled meanwhile
    }
    RunOne(id, spec, control.get());
    // Between jobs: give back to the kernel what the job's requests, uploads and results left
    // free in malloc's per-thread arenas (gRPC's threads). Without it torchscand's RSS grew by
    // about 40 MiB an hour under the soak (benchmarks/soak_benchmark.py) while its heap stayed
    // under 2 MiB (heaptrack): retained free memory, not a leak.
    ::malloc_trim(0);
    after_job = true;
    last_early_children = worker::EarlyChildCount(spec);
  }
  spare_.Stop();  // on the thread that started it; its whole process group is gone after
}

bool Executor::TakeNext(const std::string& no_spare, const std::shared_ptr<WorkerControl>& control, std::string* id,
                        v1::JobSpec* spec) {
  records_->mu().AssertHeld();
  if (queue_.empty()) return false;
  *id = *queue_.Pop();
  v1::Job& job = *records_->Find(*id);
  job.set_state(v1::Job::running);
  job.set_started_at(NowRfc3339());
  job.set_phase("starting worker");
  job.set_blocks_done(0);
  job.set_worker(no_spare.empty() ? "warm spare" : "cold: " + no_spare);
  records_->BeginPhase(job, "worker start (" + job.worker() + ")");
  running_id_ = *id;
  running_control_ = control;
  running_cancelled_ = false;
  *spec = job.spec();
  records_->Changed(job, true);
  return true;
}

void Executor::RunOne(const std::string& id, const v1::JobSpec& spec, WorkerControl* control) {
  std::unique_ptr<SpareWorker> spare;
  bool wants_spare = false;
  {
    absl::MutexLock lock(&records_->mu());
    wants_spare = records_->Find(id)->worker() == "warm spare";
  }
  spdlog::info("job {} started{}", id, wants_spare ? " on the warm spare worker" : "");
  if (wants_spare) {
    std::string why_not;
    spare = spare_.Take(control, job_wall_time_s_, &why_not);
    if (!spare && !control->killed()) FallBackToColdWorker(id, why_not);  // it died while loading
  }
  const JobRunCallbacks callbacks = ProgressOf(id, spare);
  JobRunOutcome outcome = RunJob(records_->store(), id, spec, run_options_, control, callbacks, spare.get());
  const bool ran_on_spare = spare != nullptr;
  spare.reset();  // used up (RunJob reaped it)
  if (ran_on_spare && outcome.died_before_first_line && !control->killed()) {
    // The spare died as it was handed the job (killed while idle a moment before the job
    // came, unseen yet): the job never began, so it gets the cold worker it would have had.
    spdlog::warn("job {}: the spare worker ended before it began the job ({}); running it on a cold worker", id,
                 outcome.error);
    FallBackToColdWorker(id, "the spare worker ended before it began the job: " + outcome.error);
    outcome = RunJob(records_->store(), id, spec, run_options_, control, callbacks, nullptr);
  }
  absl::MutexLock lock(&records_->mu());
  Finish(id, outcome);
}

JobRunCallbacks Executor::ProgressOf(const std::string& id, const std::unique_ptr<SpareWorker>& spare) {
  JobRunCallbacks callbacks;
  callbacks.on_start = [this, id, &spare](int pid) {
    absl::MutexLock lock(&records_->mu());
    v1::Job& job = *records_->Find(id);
    job.set_worker_pid(pid);
    // A cold worker runs (exec succeeded): until its first line it loads its libraries,
    // LibTorch above all, runs their initializers and reads its spec. The spare has loaded:
    // its handoff phase goes on until its first line.
    if (!spare) records_->BeginPhase(job, "LibTorch load");
    records_->NotifyChanged();
  };
  callbacks.on_early_children = [this, id](int count) {
    absl::MutexLock lock(&records_->mu());
    records_->EarlyChildrenStarted(id, count);
  };
  callbacks.on_phase = [this, id](const std::string& phase) {
    absl::MutexLock lock(&records_->mu());
    RecordPhase(*records_, id, phase);
  };
  callbacks.on_blocks = [this, id](int64_t blocks) {
    absl::MutexLock lock(&records_->mu());
    RecordBlocks(*records_, id, blocks);
  };
  return callbacks;
}

void Executor::Finish(const std::string& id, JobRunOutcome& outcome) {
  records_->mu().AssertHeld();
  RecordEnd(*records_, id, outcome, running_cancelled_ ? v1::Job::cancelled : v1::Job::interrupted);
  running_id_.clear();
  running_control_.reset();
}

void Executor::FallBackToColdWorker(const std::string& id, const std::string& why) {
  absl::MutexLock lock(&records_->mu());
  v1::Job& job = *records_->Find(id);
  job.set_worker("cold: " + why);
  records_->BeginPhase(job, "worker start (" + job.worker() + ")");
  records_->Changed(job, true);
}

}  // namespace torchscan::daemon
