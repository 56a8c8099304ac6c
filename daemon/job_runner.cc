#include "daemon/job_runner.h"

#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "daemon/config.h"
#include "io/file_io.h"
#include "worker/state_folder.h"
#include "worker/worker_protocol.h"

namespace torchscan::daemon {

JobRunOptions RunOptionsOf(const v1::DaemonConfig& config, const JobIsolation& isolation) {
  JobRunOptions options;
  options.sandbox = isolation.sandbox;
  WorkerLaunch& worker = options.worker;
  worker.path = config.worker_path();
  options.helpers.rss_child_path = config.rss_child_path();
  if (!config.cpu_set().empty()) {
    absl::StatusOr<std::vector<int>> cpus = ParseCpuList(config.cpu_set());
    if (cpus.ok()) worker.cpus = *std::move(cpus);
  }
  worker.memory_bytes = isolation.memory.address_space_bytes;
  if (isolation.memory.cgroups) {
    worker.memory_cgroups = isolation.memory.cgroups;
    worker.cgroup_memory_bytes = isolation.memory.limit_bytes;
  }
  worker.wall_time_s = config.limits().job_wall_time_s();
  worker.cpu_time_s = config.limits().worker_cpu_time_s();
  worker.open_files = config.limits().worker_open_files();
  worker.file_bytes = kWorkerFileBytes;
  if (!config.worker_user().empty()) {
    if (const passwd* user = ::getpwnam(config.worker_user().c_str())) {
      worker.uid = static_cast<int>(user->pw_uid);
      worker.gid = static_cast<int>(user->pw_gid);
    }
  }
  return options;
}

absl::StatusOr<JobIsolation> OpenJobIsolation(const v1::DaemonConfig& config) {
  JobIsolation isolation;
  isolation.memory = OpenWorkerMemory(config.limits().worker_memory_bytes(), CurrentMachine().memory_bytes);
  spdlog::info("worker memory: {}", isolation.memory.description);
  if (config.sandbox() != kSandboxNamespaces) return isolation;
  absl::StatusOr<JobSandbox> sandbox = JobSandbox::Create(config, isolation.memory.tmpfs_bytes);
  if (!sandbox.ok()) return sandbox.status();
  const JobRunOptions run = RunOptionsOf(config);
  if (absl::Status s = sandbox->Probe(run.worker.uid, run.worker.gid); !s.ok())
    return absl::FailedPreconditionError(absl::StrCat(
        "sandbox: the kernel refused the jobs' sandbox (", s.message(),
        "); run torchscand as root or allow unprivileged user namespaces, or set sandbox to off (--sandbox off) "
        "to accept that every job can read what worker_user can, other jobs' uploads included"));
  spdlog::info("jobs run sandboxed (namespaces): {} paths visible read-only, {} hidden",
               sandbox->base().read_only.size(), sandbox->base().hidden.size());
  isolation.sandbox = std::make_shared<const JobSandbox>(*std::move(sandbox));
  return isolation;
}

WorkerLaunch WorkerLaunchOf(const JobRunOptions& options, std::vector<std::string> args, std::string stderr_path) {
  WorkerLaunch launch = options.worker;
  launch.args = std::move(args);
  for (std::string& arg : worker::HelperProgramArgs(options.helpers)) launch.args.push_back(std::move(arg));
  launch.stderr_path = std::move(stderr_path);
  return launch;
}

namespace {

// The worker's launch for job `id`, its folder ready for it: the job's own folder, given to
// the worker's user (in a sandbox of its own for a cold worker), or, for a spare sandboxed
// before its job was known, the spare's own folder with a copy of the spec. The error says
// what could not be prepared.
struct Prepared {
  WorkerLaunch launch;
  std::string folder;  // the worker's job folder (its --job)
};

absl::StatusOr<Prepared> PrepareLaunch(JobStore& store, const std::string& id, const v1::JobSpec& spec,
                                       const JobRunOptions& options, const SpareWorker* spare) {
  // The daemon writes the spec file, uploaded files included, at submission; a job queued by a
  // much older daemon has only its record, whose spec is then whole.
  if (absl::Status s = store.HasSpec(id) ? absl::OkStatus() : store.WriteSpec(id, spec); !s.ok())
    return absl::InternalError(absl::StrCat("could not write the job's ", worker::kJobSpecFile, ": ", s.message()));
  const std::string own = spare != nullptr ? spare->launch().sandbox_folder : "";
  if (!own.empty()) {
    if (absl::Status s = store.CopySpecInto(id, own, options.worker.uid, options.worker.gid); !s.ok())
      return absl::InternalError(absl::StrCat("could not hand the spec to the spare worker: ", s.message()));
    return Prepared{WorkerLaunchOf(options, {"--job", own}, own + "/" + worker::kWorkerStderrFile), own};
  }
  if (options.worker.uid >= 0)
    if (absl::Status s = store.GiveToWorker(id, options.worker.uid, options.worker.gid); !s.ok())
      return absl::InternalError(absl::StrCat("could not give the job's folder to worker_user: ", s.message()));
  WorkerLaunch launch = WorkerLaunchOf(options, {"--job", store.JobDir(id)}, store.StderrPath(id));
  if (spare == nullptr) launch.early_children = worker::EarlyChildrenOf(spec, options.helpers);
  if (options.sandbox && spare == nullptr) {
    absl::StatusOr<std::shared_ptr<const process::SandboxPlan>> plan = options.sandbox->PlanFor(store.JobDir(id));
    if (!plan.ok())
      return absl::InternalError(absl::StrCat("the job's sandbox could not be prepared: ", plan.status().message()));
    launch.sandbox = *std::move(plan);
  }
  return Prepared{std::move(launch), store.JobDir(id)};
}

}  // namespace

JobRunOutcome RunJob(JobStore& store, const std::string& id, const v1::JobSpec& spec, const JobRunOptions& options,
                     WorkerControl* control, const JobRunCallbacks& callbacks, SpareWorker* spare) {
  JobRunOutcome outcome;
  absl::StatusOr<Prepared> prepared = PrepareLaunch(store, id, spec, options, spare);
  if (!prepared.ok()) {
    outcome.error = std::string(prepared.status().message());
    return outcome;
  }
  const WorkerLaunch& launch = prepared->launch;
  const std::string& folder = prepared->folder;

  bool saw_line = false;
  auto on_line = [&](const std::string& text) {
    std::optional<worker::WorkerLine> line = worker::ParseWorkerLine(text);
    if (!line) return;
    saw_line = true;
    if (line->kind == worker::WorkerLine::Kind::kPhase && callbacks.on_phase) callbacks.on_phase(line->phase);
    if (line->kind == worker::WorkerLine::Kind::kBlocks && callbacks.on_blocks) callbacks.on_blocks(line->blocks);
  };
  const worker::WorkerOutcome worker = spare != nullptr
                                           ? spare->Run(launch, worker::FormatHandoff({folder, launch.stderr_path}),
                                                        on_line, control, callbacks.on_start)
                                           : RunWorker(launch, on_line, control, callbacks.on_start, [&](int started) {
                                               // Only those forked: a failed fork is pid 0 to the worker and never
                                               // runs.
                                               if (started > 0 && callbacks.on_early_children)
                                                 callbacks.on_early_children(started);
                                             });
  // Nothing of the worker runs now: its folder becomes the daemon's before anything in it is
  // read (a spare's own folder: its result and stderr moved into the job's).
  if (absl::Status s = folder == store.JobDir(id) ? store.TakeBack(id) : store.MoveResultFrom(folder, id); !s.ok()) {
    outcome.error = absl::StrCat(worker.ok() ? "" : worker.reason + "; then ", s.message());
    return outcome;
  }
  // What a module printed, capped (issue 41): the last bytes, which hold why it ended.
  if (absl::Status s = KeepTail(store.JobDir(id) + "/" + worker::kWorkerStderrFile, kKeptStderrBytes); !s.ok())
    spdlog::warn("job {}: {}", id, std::string(s.message()));
  if (!worker.ok()) {
    outcome.killed = worker.kind == worker::WorkerOutcome::Kind::kKilled;
    outcome.error = worker.reason;
    outcome.died_before_first_line = worker.kind == worker::WorkerOutcome::Kind::kSignaled && !saw_line;
    // On a full state_dir the worker's stderr line may not have found room either: say how
    // full it is, so that the reason survives.
    if (worker.kind == worker::WorkerOutcome::Kind::kExited && worker.exit_code == worker::kWorkerResultNotWritten) {
      const int64_t free_bytes = store.FreeBytes();
      if (free_bytes >= 0)
        absl::StrAppend(&outcome.error, "; state_dir ", store.state_dir(), " has ", free_bytes, " bytes free");
    }
    return outcome;
  }
  absl::StatusOr<v1::JobResult> result = store.LoadResult(id);
  if (!result.ok()) {
    outcome.error = absl::StrCat("the worker exited 0 but its result is unusable: ", result.status().message());
    return outcome;
  }
  outcome.state = v1::Job::succeeded;
  outcome.result = *std::move(result);
  return outcome;
}

}  // namespace torchscan::daemon
