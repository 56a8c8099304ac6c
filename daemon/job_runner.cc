#include "daemon/job_runner.h"

#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "daemon/config.h"
#include "worker/state_folder.h"
#include "worker/worker_protocol.h"

namespace torchscan::daemon {

JobRunOptions RunOptionsOf(const v1::DaemonConfig& config, std::shared_ptr<const JobSandbox> sandbox) {
  JobRunOptions options;
  options.sandbox = std::move(sandbox);
  WorkerLaunch& worker = options.worker;
  worker.path = config.worker_path();
  options.helpers.rss_child_path = config.rss_child_path();
  if (!config.cpu_set().empty()) {
    absl::StatusOr<std::vector<int>> cpus = ParseCpuList(config.cpu_set());
    if (cpus.ok()) worker.cpus = *std::move(cpus);
  }
  worker.memory_bytes = config.limits().worker_memory_bytes();
  worker.wall_time_s = config.limits().job_wall_time_s();
  worker.cpu_time_s = config.limits().worker_cpu_time_s();
  worker.open_files = config.limits().worker_open_files();
  if (!config.worker_user().empty()) {
    if (const passwd* user = ::getpwnam(config.worker_user().c_str())) {
      worker.uid = static_cast<int>(user->pw_uid);
      worker.gid = static_cast<int>(user->pw_gid);
    }
  }
  return options;
}

WorkerLaunch WorkerLaunchOf(const JobRunOptions& options, std::vector<std::string> args, std::string stderr_path) {
  WorkerLaunch launch = options.worker;
  launch.args = std::move(args);
  for (std::string& arg : worker::HelperProgramArgs(options.helpers)) launch.args.push_back(std::move(arg));
  launch.stderr_path = std::move(stderr_path);
  return launch;
}

JobRunOutcome RunJob(JobStore& store, const std::string& id, const v1::JobSpec& spec, const JobRunOptions& options,
                     WorkerControl* control, const JobRunCallbacks& callbacks, SpareWorker* spare) {
  JobRunOutcome outcome;
  // The daemon writes spec.json, uploaded files included, at submission; a job queued by an
  // older daemon has only its record, whose spec is then whole.
  if (absl::Status s = store.HasSpec(id) ? absl::OkStatus() : store.WriteSpec(id, spec); !s.ok()) {
    outcome.error = absl::StrCat("could not write the job's ", worker::kJobSpecFile, ": ", s.message());
    return outcome;
  }
  if (absl::Status s =
          options.worker.uid >= 0 ? store.GiveToWorker(id, options.worker.uid, options.worker.gid) : absl::OkStatus();
      !s.ok()) {
    outcome.error = absl::StrCat("could not give the job's folder to worker_user: ", s.message());
    return outcome;
  }
  WorkerLaunch launch = WorkerLaunchOf(options, {"--job", store.JobDir(id)}, store.StderrPath(id));
  if (spare == nullptr) launch.early_children = worker::EarlyChildrenOf(spec, options.helpers);
  if (options.sandbox) {
    absl::StatusOr<std::shared_ptr<const process::SandboxPlan>> plan = options.sandbox->PlanFor(store.JobDir(id));
    if (!plan.ok()) {
      outcome.error = absl::StrCat("the job's sandbox could not be prepared: ", plan.status().message());
      return outcome;
    }
    launch.sandbox = *std::move(plan);
  }

  bool saw_line = false;
  auto on_line = [&](const std::string& text) {
    std::optional<worker::WorkerLine> line = worker::ParseWorkerLine(text);
    if (!line) return;
    saw_line = true;
    if (line->kind == worker::WorkerLine::Kind::kPhase && callbacks.on_phase) callbacks.on_phase(line->phase);
    if (line->kind == worker::WorkerLine::Kind::kBlocks && callbacks.on_blocks) callbacks.on_blocks(line->blocks);
  };
  const worker::WorkerOutcome worker =
      spare != nullptr ? spare->Run(launch, worker::FormatHandoff({store.JobDir(id), store.StderrPath(id)}), on_line,
                                    control, callbacks.on_start)
                       : RunWorker(launch, on_line, control, callbacks.on_start, [&](int started) {
                           // Only those forked: a failed fork is pid 0 to the worker and never runs.
                           if (started > 0 && callbacks.on_early_children) callbacks.on_early_children(started);
                         });
  // Nothing of the worker runs now: its folder becomes the daemon's before anything in it is read.
  if (absl::Status s = store.TakeBack(id); !s.ok()) {
    outcome.error = absl::StrCat(worker.ok() ? "" : worker.reason + "; then ", s.message());
    return outcome;
  }
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
