#include "daemon/executor.h"

#include <malloc.h>

#include <algorithm>
#include <functional>
#include <utility>

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/timestamp.h"
#include "daemon/config.h"
#include "daemon/job_progress.h"
#include "daemon/pinned_launch.h"
#include "spec/device_name.h"
#include "worker/state_folder.h"
#include "worker/worker_protocol.h"

namespace torchscan::daemon {

namespace {

// A lane's spare's files: the CPU's keep the names they always had.
std::string LaneFile(const v1::DaemonConfig& config, const char* name, const std::string& device) {
  std::string suffix = device == "cpu" ? "" : "-" + device;
  std::replace(suffix.begin(), suffix.end(), ':', '_');
  return config.state_dir() + "/" + name + suffix;
}

std::vector<std::string> OfferedDevices(const v1::DaemonConfig& config) {
  std::vector<std::string> devices(config.devices().begin(), config.devices().end());
  for (std::string& device : devices)
    if (absl::StatusOr<spec::DeviceName> name = spec::ParseDeviceName(device); name.ok()) device = name->text;
  if (devices.empty()) devices.push_back("cpu");
  return devices;
}

}  // namespace

Executor::Executor(const v1::DaemonConfig& config, JobRecords* records, const JobIsolation& isolation)
    : records_(records),
      run_options_(RunOptionsOf(config, isolation)),
      job_wall_time_s_(config.limits().job_wall_time_s()),
      worker_memory_(isolation.memory.description),
      available_cpus_(CurrentMachine().available_cpus),
      scheduler_(OfferedDevices(config), config.limits().max_queue_length(), config.limits().max_queued_per_user()) {
  for (const std::string& device : scheduler_.devices()) {
    auto lane = std::make_unique<Lane>();
    lane->device = device;
    lane->options = PinnedRunOptions(run_options_, {device}, available_cpus_);
    lane->spare = std::make_unique<SpareSlot>(lane->options, config.no_spare_worker() ? "no_spare_worker" : "",
                                              LaneFile(config, worker::kSpareWorkerStderrFile, device),
                                              LaneFile(config, worker::kSpareJobFolder, device));
    lanes_.push_back(std::move(lane));
  }
}

Executor::~Executor() { Stop("the daemon was stopped"); }

void Executor::Start() {
  absl::MutexLock lock(&records_->mu());
  if (started_ || stopping_) return;
  started_ = true;
  for (const std::unique_ptr<Lane>& lane : lanes_) lane->thread = std::thread(&Executor::Loop, this, std::ref(*lane));
}

void Executor::Stop(const std::string& reason) {
  {
    absl::MutexLock lock(&records_->mu());
    stopping_ = true;
    for (const std::unique_ptr<Lane>& lane : lanes_) {
      if (lane->control && !lane->control->killed()) {
        lane->cancelled = false;
        lane->control->Kill(reason);
      }
    }
    work_.SignalAll();
    records_->NotifyChanged();
  }
  for (const std::unique_ptr<Lane>& lane : lanes_)
    if (lane->thread.joinable()) lane->thread.join();
}

void Executor::Restore(const v1::Job& job) {
  records_->mu().AssertHeld();
  scheduler_.Restore(job.id(), job.submitter(), JobClaims(job.spec(), scheduler_.devices()));
  spdlog::info("job {} queued again after a restart", job.id());
}

absl::Status Executor::Accept(const v1::Job& job) {
  records_->mu().AssertHeld();
  if (!job.spec().node().empty())
    return absl::InvalidArgumentError(
        "spec.node: this daemon runs jobs on its own machine; only a Slurm front daemon places them on nodes "
        "(leave --node out)");
  if (absl::Status s = scheduler_.Push(job.id(), job.submitter(), JobClaims(job.spec(), scheduler_.devices())); !s.ok())
    return s;
  work_.SignalAll();
  return absl::OkStatus();
}

void Executor::Withdraw(const std::string& id) {
  records_->mu().AssertHeld();
  scheduler_.Remove(id);
}

int Executor::Position(const std::string& id) const {
  records_->mu().AssertHeld();
  return scheduler_.Position(id);
}

int Executor::queued() const {
  records_->mu().AssertHeld();
  return static_cast<int>(scheduler_.size());
}

bool Executor::stopping() const {
  records_->mu().AssertHeld();
  return stopping_;
}

// How long Cancel waits for a running job's worker to be killed and its end recorded.
constexpr absl::Duration kCancelWait = absl::Seconds(10);

absl::Status Executor::Cancel(const std::string& id, const std::string& by) {
  absl::MutexLock lock(&records_->mu());
  v1::Job* job = records_->Find(id);
  if (job == nullptr) return absl::OkStatus();
  if (job->state() == v1::Job::queued && scheduler_.Remove(id)) {
    job->set_state(v1::Job::cancelled);
    job->set_error(absl::StrCat("cancelled by ", by, " while queued"));
    job->set_finished_at(NowRfc3339());
    records_->EndPhases(*job);
    spdlog::info("job {} cancelled by {} while queued", id, by);
    records_->Changed(*job, true);
    return absl::OkStatus();
  }
  Lane* lane = RunningLane(id);
  if (job->state() != v1::Job::running || lane == nullptr) return absl::OkStatus();  // it has ended
  if (!lane->control->killed()) {
    lane->cancelled = true;
    lane->control->Kill(absl::StrCat("cancelled by ", by, " while running (worker killed with SIGKILL)"));
    spdlog::info("job {} cancel requested by {}: killing its worker", id, by);
  }
  const absl::Time deadline = absl::Now() + kCancelWait;
  while (records_->Find(id)->state() == v1::Job::running && !records_->WaitForChange(deadline)) {
  }
  return absl::OkStatus();
}

void Executor::Describe(v1::DaemonInfo* info) const {
  info->set_worker_memory(worker_memory_);
  absl::MutexLock lock(&records_->mu());
  info->set_queued(static_cast<int32_t>(scheduler_.size()));
  info->set_running_job(absl::StrJoin(scheduler_.Running(), ","));
  for (const std::unique_ptr<Lane>& lane : lanes_) {
    v1::DeviceLane* shown = info->add_devices();
    shown->set_device(lane->device);
    const std::string holder = scheduler_.RunningOn(lane->device);
    shown->set_running_job(holder);
    shown->set_state(holder.empty()               ? "idle"
                     : lane->running_id == holder ? "running job " + holder
                                                  : "held by job " + holder);
    shown->set_queued(scheduler_.QueuedOn(lane->device));
    shown->set_cpus(LaunchCpus(lane->options));
    shown->set_pinned(LaunchPin(lane->options));
    shown->set_spare_worker_pid(lane->spare->pid());
    shown->set_spare_worker_ready(lane->spare->ready());
  }
  // The daemon-wide fields are the first lane's (the CPU's, where it offers one).
  const SpareSlot& first = *lanes_.front()->spare;
  info->set_spare_worker_pid(first.pid());
  info->set_spare_worker_rss_bytes(first.rss_bytes());
  info->set_spare_worker_ready(first.ready());
}

Executor::Lane* Executor::RunningLane(const std::string& id) {
  records_->mu().AssertHeld();
  for (const std::unique_ptr<Lane>& lane : lanes_)
    if (lane->running_id == id && lane->control) return lane.get();
  return nullptr;
}

// How often an idle executor looks at the spare worker (one that died is replaced).
constexpr absl::Duration kIdleSpareCheck = absl::Seconds(1);

bool Executor::MaySpare(const Lane& lane) const {
  records_->mu().AssertHeld();
  return scheduler_.RunningOn(lane.device).empty();
}

void Executor::Loop(Lane& lane) {
  bool after_job = false;
  int last_early_children = 0;  // of the job that ran last: the next spare prepares as many
  while (true) {
    bool may_spare = false;
    {
      absl::MutexLock lock(&records_->mu());
      if (stopping_) break;  // no spare for a daemon on its way out
      may_spare = MaySpare(lane);
    }
    // Between jobs, never beside a CPU job: the spare starts here (its loading competes with
    // no timing of this lane), and one that died while idle is noticed and replaced.
    if (may_spare) {
      lane.spare->Refill(after_job, last_early_children);
      after_job = false;
    } else {
      (void)lane.spare->Unavailable();  // looked at: a CPU job waits for a loading spare to be ready
    }
    {
      absl::MutexLock lock(&records_->mu());
      const absl::Time deadline = absl::Now() + kIdleSpareCheck;
      while (!stopping_ && !scheduler_.Next(lane.device) && !work_.WaitWithDeadline(&records_->mu(), deadline)) {
      }
      if (stopping_) break;
      if (!scheduler_.Next(lane.device)) continue;
    }
    // Looked at now (a spare killed a moment ago is seen), outside the lock (reaping one takes time).
    const std::string no_spare = lane.spare->Unavailable();
    std::string id;
    v1::JobSpec spec;
    JobRunOptions options;
    auto control = std::make_shared<WorkerControl>();
    {
      // Taking the next job and marking it running is one step, so that Stop either finds it
      // queued or finds its control to kill.
      absl::MutexLock lock(&records_->mu());
      if (stopping_) break;
      if (!TakeNext(lane, no_spare, control, &id, &spec, &options)) continue;  // taken by no one: cancelled meanwhile
    }
    RunOne(lane, id, spec, options, control.get());
    // Between jobs: give back to the kernel what the job's requests, uploads and results left
    // free in malloc's per-thread arenas (gRPC's threads). Without it torchscand's RSS grew by
    // about 40 MiB an hour under the soak (benchmarks/soak_benchmark.py) while its heap stayed
    // under 2 MiB (heaptrack): retained free memory, not a leak.
    ::malloc_trim(0);
    after_job = true;
    last_early_children = worker::EarlyChildCount(spec);
  }
  lane.spare->Stop();  // on the thread that started it; its whole process group is gone after
}

bool Executor::TakeNext(Lane& lane, const std::string& no_spare, const std::shared_ptr<WorkerControl>& control,
                        std::string* id, v1::JobSpec* spec, JobRunOptions* options) {
  records_->mu().AssertHeld();
  const std::optional<std::string> next = scheduler_.Start(lane.device);
  if (!next) return false;
  *id = *next;
  const std::vector<std::string> claims = scheduler_.ClaimsOf(*id);
  // A CPU job runs as the CPU lane's workers do; a GPU job on its lane's GPU alone likewise.
  const bool lanes_own = claims.front() == "cpu" || claims == std::vector<std::string>{lane.device};
  *options = lanes_own ? lane.options : PinnedRunOptions(run_options_, claims, available_cpus_);
  std::string cold = no_spare;
  if (!lanes_own && cold.empty())
    cold = absl::StrCat("its devices (", absl::StrJoin(claims, ", "), ") are not its lane's (", lane.device,
                        "): a worker of its own");
  v1::Job& job = *records_->Find(*id);
  job.set_state(v1::Job::running);
  job.set_started_at(NowRfc3339());
  job.set_phase("starting worker");
  job.set_blocks_done(0);
  job.set_worker(cold.empty() ? "warm spare" : "cold: " + cold);
  records_->BeginPhase(job, "worker start (" + job.worker() + ")");
  lane.running_id = *id;
  lane.control = control;
  lane.cancelled = false;
  *spec = job.spec();
  records_->Changed(job, true);
  return true;
}

void Executor::RunOne(Lane& lane, const std::string& id, const v1::JobSpec& spec, const JobRunOptions& options,
                      WorkerControl* control) {
  std::unique_ptr<SpareWorker> spare;
  bool wants_spare = false;
  bool cpu_job = false;
  {
    absl::MutexLock lock(&records_->mu());
    wants_spare = records_->Find(id)->worker() == "warm spare";
    cpu_job = scheduler_.ClaimsOf(id).front() == "cpu";
  }
  if (cpu_job) WaitForLoadingSpares(lane, control);
  spdlog::info("job {} started{}", id, wants_spare ? " on the warm spare worker" : "");
  if (wants_spare) {
    std::string why_not;
    spare = lane.spare->Take(control, job_wall_time_s_, &why_not);
    if (!spare && !control->killed()) FallBackToColdWorker(id, why_not);  // it died while loading
  }
  const JobRunCallbacks callbacks = ProgressOf(id, spare);
  JobRunOutcome outcome = RunJob(records_->store(), id, spec, options, control, callbacks, spare.get());
  const bool ran_on_spare = spare != nullptr;
  spare.reset();  // used up (RunJob reaped it)
  if (ran_on_spare && outcome.died_before_first_line && !control->killed()) {
    // The spare died as it was handed the job (killed while idle a moment before the job
    // came, unseen yet): the job never began, so it gets the cold worker it would have had.
    spdlog::warn("job {}: the spare worker ended before it began the job ({}); running it on a cold worker", id,
                 outcome.error);
    FallBackToColdWorker(id, "the spare worker ended before it began the job: " + outcome.error);
    outcome = RunJob(records_->store(), id, spec, options, control, callbacks, nullptr);
  }
  absl::MutexLock lock(&records_->mu());
  Finish(lane, id, outcome);
}

// How long a CPU job waits for other lanes' spares to finish loading, at most.
constexpr absl::Duration kSpareLoadWait = absl::Seconds(60);

void Executor::WaitForLoadingSpares(const Lane& lane, const WorkerControl* control) {
  const absl::Time start = absl::Now();
  auto loading = [&] {
    for (const std::unique_ptr<Lane>& other : lanes_)
      if (other.get() != &lane && other->spare->pid() != 0 && !other->spare->ready()) return true;
    return false;
  };
  while (loading() && !control->killed() && absl::Now() - start < kSpareLoadWait)
    absl::SleepFor(absl::Milliseconds(50));
  if (absl::Now() - start > absl::Milliseconds(100))
    spdlog::info("waited {:.1f} s for other devices' spare workers to finish loading before a CPU job",
                 absl::ToDoubleSeconds(absl::Now() - start));
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

void Executor::Finish(Lane& lane, const std::string& id, JobRunOutcome& outcome) {
  records_->mu().AssertHeld();
  RecordEnd(*records_, id, outcome, lane.cancelled ? v1::Job::cancelled : v1::Job::interrupted);
  lane.running_id.clear();
  lane.control.reset();
  scheduler_.Finish(id);
  work_.SignalAll();  // its devices are free: another lane's job may start
}

void Executor::FallBackToColdWorker(const std::string& id, const std::string& why) {
  absl::MutexLock lock(&records_->mu());
  v1::Job& job = *records_->Find(id);
  job.set_worker("cold: " + why);
  records_->BeginPhase(job, "worker start (" + job.worker() + ")");
  records_->Changed(job, true);
}

}  // namespace torchscan::daemon
