#include "daemon/worker_launcher.h"

#include <signal.h>
#include <sys/socket.h>

#include <cerrno>
#include <optional>

#include "absl/strings/str_cat.h"
#include "process/spawn.h"
#include "process/stdio.h"
#include "process/supervise.h"
#include "worker/worker_protocol.h"

namespace torchscan::daemon {
namespace {

// The launch's own memory cgroup, when it asks for one; nullptr when it does not.
absl::StatusOr<std::unique_ptr<process::WorkerCgroup>> CgroupOf(const WorkerLaunch& launch) {
  if (!launch.memory_cgroups) return nullptr;
  return launch.memory_cgroups->Make(launch.cgroup_memory_bytes);
}

// A worker ended by its memory bounds: its outcome says which (the cgroup's OOM killer, with the
// limit and the fix; a SIGBUS, most often a full /tmp or /dev/shm).
void ExplainMemoryEnd(const WorkerLaunch& launch, const process::WorkerCgroup* cgroup, worker::WorkerOutcome* outcome) {
  if (outcome->signal == SIGBUS && launch.sandbox)
    absl::StrAppend(&outcome->reason,
                    "; in a sandboxed job a SIGBUS most often means a file mapped in /tmp or /dev/shm "
                    "grew past their size (each holds a quarter of worker_memory_bytes)");
  if (cgroup == nullptr || outcome->ok() || cgroup->oom_kills() == 0) return;
  absl::StrAppend(&outcome->reason, "; the job reached its memory limit, worker_memory_bytes ",
                  launch.cgroup_memory_bytes,
                  " (/tmp and /dev/shm count in it), and the kernel's OOM killer ended "
                  "it: use less memory, or ask the daemon's admin for a larger --worker-memory");
}

}  // namespace

process::RunOptions WorkerRunOptionsOf(const WorkerLaunch& launch, WorkerControl* control) {
  process::RunOptions options = worker::WorkerRunOptions(launch.path, launch.args);
  process::SetUp& setup = options.spawn.setup;
  setup.own_process_group = launch.own_process_group;
  setup.cpus = launch.cpus;
  setup.memory_bytes = launch.memory_bytes;
  setup.cpu_time_s = launch.cpu_time_s;
  setup.open_files = launch.open_files;
  setup.file_bytes = launch.file_bytes;
  setup.uid = launch.uid;
  setup.gid = launch.gid;
  options.spawn.early = launch.early_children;
  options.spawn.environment = launch.environment;
  setup.sandbox = launch.sandbox.get();  // the plan lives as long as `launch`
  options.stderr_path = launch.stderr_path;
  options.wall_time_s = launch.wall_time_s;
  options.control = control;
  return options;
}

worker::WorkerOutcome RunWorker(const WorkerLaunch& launch, const std::function<void(const std::string&)>& on_line,
                                WorkerControl* control, const std::function<void(int pid)>& on_start,
                                const std::function<void(int started)>& on_early_children) {
  process::RunOptions options = WorkerRunOptionsOf(launch, control);
  absl::StatusOr<std::unique_ptr<process::WorkerCgroup>> cgroup = CgroupOf(launch);
  if (!cgroup.ok()) {
    worker::WorkerOutcome failed;
    failed.reason = absl::StrCat("cannot start worker: ", cgroup.status().message());
    return failed;
  }
  if (*cgroup) options.spawn.setup.cgroup_procs_fd = (*cgroup)->procs_fd();
  const process::RunResult run = process::Run(options, on_line, [&](const process::Spawned& spawned) {
    if (on_start) on_start(spawned.pid);
    if (!launch.early_children.children.empty() && on_early_children) on_early_children(spawned.early_started);
  });
  worker::WorkerOutcome outcome = worker::WorkerOutcomeOf(run, options);
  ExplainMemoryEnd(launch, cgroup->get(), &outcome);
  return outcome;
}

// ---------------------------------------------------------------- SpareWorker

std::unique_ptr<SpareWorker> SpareWorker::Start(const WorkerLaunch& launch, std::string* reason) {
  WorkerLaunch own = launch;
  own.early_children = {};  // RunWorker's only
  process::RunOptions options = WorkerRunOptionsOf(own, nullptr);
  absl::StatusOr<std::unique_ptr<process::WorkerCgroup>> cgroup = CgroupOf(own);
  if (!cgroup.ok()) {
    *reason = absl::StrCat("cannot start worker: ", cgroup.status().message());
    return nullptr;
  }
  if (*cgroup) options.spawn.setup.cgroup_procs_fd = (*cgroup)->procs_fd();
  process::Stdio stdio;
  process::SpawnError error;
  process::Spawned spawned;
  bool started = process::OpenStdio(own.stderr_path, /*stdin_socket=*/true, &stdio, &error);
  if (started) {
    stdio.Into(&options.spawn.setup);
    started = process::Spawn(options.spawn, &spawned, &error);
    stdio.CloseChildEnds();
  }
  if (!started) {
    process::RunResult failed;
    failed.error = error;
    *reason = worker::WorkerOutcomeOf(failed, options).reason;
    return nullptr;
  }
  std::unique_ptr<SpareWorker> spare(new SpareWorker(own));
  spare->pid_ = spawned.pid;
  spare->cgroup_ = *std::move(cgroup);
  spare->job_fd_ = std::move(stdio.in_peer);
  spare->pump_ = std::make_unique<process::OutputPump>(
      stdio.out_read.Release(), [ready = &spare->ready_](const std::string& text) {
        const std::optional<worker::WorkerLine> line = worker::ParseWorkerLine(text);
        if (line && line->kind == worker::WorkerLine::Kind::kReady) *ready = true;
      });
  return spare;
}

SpareWorker::~SpareWorker() {
  if (!ended_) process::KillAndReap(pid_, process::End::kKilled, /*own_group=*/true);
  pump_->Finish(/*deliver=*/false);
}

void SpareWorker::EndNow() {
  const std::optional<int> status = process::KillAndReap(pid_, process::End::kExited, /*own_group=*/true);
  pump_->Finish(/*deliver=*/false);
  ended_ = true;
  const process::RunOptions options = WorkerRunOptionsOf(launch_, nullptr);
  end_reason_ = worker::DescribeWorkerStatus(status.value_or(-1), worker::ReadStderrTail(launch_.stderr_path), options);
  if (end_reason_.empty()) end_reason_ = "worker exited with status 0 before it had a job";
}

SpareWorker::State SpareWorker::Wait(int timeout_ms, const WorkerControl* control) {
  if (ended_) return State::kEnded;
  if (!pump_->eof()) pump_->Read();  // what it printed so far (without blocking)
  if (process::Ended(pid_)) {
    EndNow();
    return State::kEnded;
  }
  if (ready_) return State::kReady;
  if (timeout_ms <= 0 || (control != nullptr && control->killed())) return State::kLoading;
  process::Watch watch;
  watch.limit_s = timeout_ms / 1000.0;
  watch.control = control;
  const process::End end = process::WaitForEnd(pid_, pump_.get(), watch, [this] { return ready_; });
  if (end == process::End::kExited) {
    EndNow();
    return State::kEnded;
  }
  return end == process::End::kDone ? State::kReady : State::kLoading;
}

worker::WorkerOutcome SpareWorker::Run(const WorkerLaunch& job, const std::string& handoff,
                                       const std::function<void(const std::string&)>& on_line, WorkerControl* control,
                                       const std::function<void(int pid)>& on_start) {
  const process::RunOptions options = WorkerRunOptionsOf(job, control);
  process::Watch watch;
  watch.limit_s = job.wall_time_s;
  watch.control = control;
  // A write that fails (the spare died just now) is seen by Supervise as its end.
  size_t written = 0;
  while (written < handoff.size()) {
    const ssize_t n = ::send(job_fd_.get(), handoff.data() + written, handoff.size() - written, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  job_fd_.Reset();  // end of file: the handoff is whole
  if (on_start) on_start(pid_);
  pump_->set_on_line(on_line);
  ended_ = true;  // Supervise reaps it
  const process::Ending ending = process::Supervise(pid_, pump_.get(), watch, /*own_group=*/true);
  process::RunResult run;
  run.started = true;
  run.spawned.pid = pid_;
  run.end = ending.end;
  run.status = ending.status;
  run.wall_s = ending.wall_s;
  worker::WorkerOutcome outcome = worker::WorkerOutcomeOf(run, options);
  ExplainMemoryEnd(job, cgroup_.get(), &outcome);
  return outcome;
}

}  // namespace torchscan::daemon
