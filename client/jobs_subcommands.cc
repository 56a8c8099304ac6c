#include "client/jobs_subcommands.h"

#include <cstdio>
#include <vector>

#include "absl/strings/str_format.h"
#include "client/exit_codes.h"
#include "client/output_folder.h"
#include "client/progress.h"
#include "client/run_job_commands.h"
#include "io/proto_json.h"
#include "proto/spec_limits.h"
#include "report/escaping.h"
#include "report/noise_floor_text.h"
#include "report/text_table.h"
#include "report/timeline_text.h"

namespace torchscan {
namespace {

// "45 s", "12 min", "5.5 h", "8.0 days".
std::string FormatAge(double seconds) {
  if (seconds < 120) return absl::StrFormat("%.0f s", seconds);
  if (seconds < 2 * 3600) return absl::StrFormat("%.0f min", seconds / 60);
  if (seconds < 48 * 3600) return absl::StrFormat("%.1f h", seconds / 3600);
  return absl::StrFormat("%.1f days", seconds / 86400);
}

// A job's cells: id, state, kind, submitter, submitted, label, result (user text made
// terminal-safe), for report::TextTable.
std::vector<std::string> JobRow(const v1::Job& j) {
  std::string state = v1::Job::State_Name(j.state());
  if (j.state() == v1::Job::queued) state += absl::StrFormat(" #%d", j.queue_position());
  const char* kind = j.spec().has_compare() ? "compare" : j.spec().has_calibrate() ? "calibrate" : "measure";
  std::string result = j.latency_change().empty() ? "" : j.latency_change() + ", check " + j.output_check();
  if (!j.error().empty()) result = j.error();
  return {report::TerminalSafe(j.id()),
          state,
          kind,
          report::TerminalSafe(j.submitter()),
          report::TerminalSafe(j.submitted_at()),
          report::TerminalSafe(j.spec().label()),
          report::TerminalSafe(result)};
}

std::string JobLine(const v1::Job& j) { return report::TextTable({JobRow(j)}); }

void PrintJob(const ClientContext& ctx, const v1::Job& job) {
  if (ctx.json) {
    std::printf("%s\n", ToJson(job).c_str());
    return;
  }
  std::fputs(JobLine(job).c_str(), stdout);
  if (!job.phase().empty() && job.state() == v1::Job::running) std::printf("  phase: %s\n", job.phase().c_str());
  if (!job.spec().revision().empty()) std::printf("  revision: %s\n", job.spec().revision().c_str());
  if (!job.started_at().empty()) std::printf("  started: %s\n", job.started_at().c_str());
  if (!job.finished_at().empty()) std::printf("  finished: %s\n", job.finished_at().c_str());
  if (!job.worker().empty()) std::printf("  worker: %s\n", job.worker().c_str());
  if (!job.timeline().spans().empty())
    std::printf("  timeline (seconds since %s):\n%s", job.timeline().started_at().c_str(),
                report::TimelineText(job.timeline(), "    ").c_str());
}

// Runs `body` with the connection, mapping a failure to connect to its exit code.
template <typename Body>
int With(absl::StatusOr<Connection> c, Body body) {
  if (!c.ok()) return ReportError(c.status());
  return body(*c->client);
}

}  // namespace

absl::StatusOr<v1::Job::State> ParseJobState(const std::string& text) {
  v1::Job::State state;
  if (!v1::Job::State_Parse(text, &state) || state == v1::Job::state_unspecified)
    return absl::InvalidArgumentError("--state: \"" + text +
                                      "\" is not one of queued, running, succeeded, failed, cancelled, interrupted");
  return state;
}

int ListJobsCommand(const ClientContext& ctx, const std::string& state_filter, int limit) {
  v1::ListJobsRequest request;
  request.set_limit(limit);
  if (!state_filter.empty()) {
    absl::StatusOr<v1::Job::State> state = ParseJobState(state_filter);
    if (!state.ok()) return ReportError(state.status());
    request.add_states(*state);
  }
  return With(ConnectResident(ctx, "jobs list"), [&](DaemonClient& client) {
    absl::StatusOr<v1::ListJobsResponse> jobs = client.ListJobs(request);
    if (!jobs.ok()) return ReportError(jobs.status());
    if (ctx.json) {
      std::printf("%s\n", ToJson(*jobs).c_str());
      return int{kExitOk};
    }
    std::vector<std::vector<std::string>> rows = {{"ID", "STATE", "KIND", "SUBMITTER", "SUBMITTED", "LABEL", "RESULT"}};
    for (const v1::Job& j : jobs->jobs()) rows.push_back(JobRow(j));
    std::fputs(report::TextTable(rows).c_str(), stdout);
    return int{kExitOk};
  });
}

int ShowJobCommand(const ClientContext& ctx, const std::string& id) {
  return With(ConnectResident(ctx, "jobs show"), [&](DaemonClient& client) {
    absl::StatusOr<v1::Job> job = client.GetJob(id);
    if (!job.ok()) return ReportError(job.status());
    PrintJob(ctx, *job);
    return int{kExitOk};
  });
}

int CancelJobCommand(const ClientContext& ctx, const std::string& id) {
  return With(ConnectResident(ctx, "jobs cancel"), [&](DaemonClient& client) {
    absl::StatusOr<v1::Job> job = client.Cancel(id);
    if (!job.ok()) return ReportError(job.status());
    PrintJob(ctx, *job);
    return int{kExitOk};
  });
}

int WatchJobCommand(const ClientContext& ctx, const std::string& id) {
  return With(ConnectResident(ctx, "jobs watch"), [&](DaemonClient& client) {
    ProgressPrinter progress(stderr, ctx.terminal);
    absl::StatusOr<v1::Job> job = client.Watch(id, [&](const v1::JobEvent& e) { progress.OnEvent(e); });
    progress.Finish();
    if (!job.ok()) return ReportError(job.status());
    if (ctx.json || job->state() != v1::Job::succeeded) {
      PrintJob(ctx, *job);
      return job->state() == v1::Job::succeeded ? int{kExitOk} : int{kExitJobFailed};
    }
    // Done: the summary the job commands print (`jobs show` has the record and its timeline).
    absl::StatusOr<v1::JobResult> result = client.FetchResult(id);
    if (!result.ok()) return ReportError(result.status());
    std::fputs(Summarize(ctx, *result).c_str(), stdout);
    std::fprintf(stderr, "torchscan-client: `%s` writes its evidence (JSON and HTML)\n",
                 JobsCommandLine(client.address(), "fetch " + id).c_str());
    return ResultExitCode(*result);
  });
}

int FetchJobCommand(const ClientContext& ctx, const std::string& id, const std::string& output_dir, bool force) {
  return With(ConnectResident(ctx, "jobs fetch"), [&](DaemonClient& client) {
    absl::StatusOr<v1::JobResult> result = client.FetchResult(id);
    if (!result.ok()) return ReportError(result.status());
    // Without --output, where the job commands write: ./torchscan-<job id>/.
    const std::string dir = output_dir.empty() ? DefaultOutputFolder(id) : output_dir;
    if (absl::Status s = CheckOutputFolder(
            dir, result->has_calibration() ? CalibrationFiles() : EvidenceFiles(result->has_comparison()), force);
        !s.ok())
      return ReportError(s);
    std::string json_path;
    if (absl::Status s = WriteEvidence(*result, dir, &json_path); !s.ok()) return ReportError(s);
    std::fprintf(stderr, "wrote %s and its .html\n", json_path.c_str());
    std::fputs(Summarize(ctx, *result).c_str(), stdout);
    return ResultExitCode(*result);
  });
}

namespace {

// A Slurm front's partition and its nodes, each with its noise floor.
void PrintSlurmNodes(const v1::DaemonInfo& info) {
  const v1::SlurmConfig& s = info.config().slurm();
  std::printf("  slurm     partition %s: each job is one exclusive Slurm job on one node (time limit %s%s%s)\n",
              s.partition().c_str(), s.time_limit().c_str(), s.gres().empty() ? "" : ", gres ", s.gres().c_str());
  if (info.nodes().empty())
    std::printf("  nodes     none listed: sinfo failed (is slurmctld running? `scontrol ping`)\n");
  for (const v1::SlurmNode& n : info.nodes()) {
    const std::string floor =
        n.has_noise_floor()
            ? FormatAge(n.noise_floor().age_s()) + " old: " + report::DescribeNoiseFloor(n.noise_floor())
            : "no noise floor yet: run `torchscan-client calibrate --node " + n.name() + "`";
    std::printf("  node      %s, %s, %d CPUs%s%s; noise %s\n", n.name().c_str(), n.state().c_str(), n.cpus(),
                n.features().empty() ? "" : ", features ", n.features().c_str(), floor.c_str());
  }
}

}  // namespace

int InfoCommand(const ClientContext& ctx) {
  // With no daemon given: a private one, which describes this machine.
  return With(Connect(ctx), [&](DaemonClient& client) {
    absl::StatusOr<v1::DaemonInfo> info = client.Info();
    if (!info.ok()) return ReportError(info.status());
    if (ctx.json) {
      std::printf("%s\n", ToJson(*info).c_str());
      return int{kExitOk};
    }
    const v1::Environment& e = info->environment();
    std::printf("torchscand %s at %s (up since %s)\n", info->version().c_str(), client.address().c_str(),
                info->started_at().c_str());
    std::printf("  host      %s, %s, %s\n", e.hostname().c_str(), e.os().c_str(), e.kernel().c_str());
    std::printf("  cpu       %s, %d logical / %d physical cores\n", e.cpu_model().c_str(), e.logical_cores(),
                e.physical_cores());
    std::printf("  libtorch  %s (the workers')\n",
                e.libtorch_version().empty() ? "unknown" : e.libtorch_version().c_str());
    std::string devices;
    for (const std::string& d : info->config().devices()) devices += (devices.empty() ? "" : ", ") + d;
    std::printf("  devices   %s%s\n", devices.c_str(),
                info->devices_size() > 1 ? " (a job per device at once; a CPU job runs alone)" : "");
    for (const v1::DeviceLane& lane : info->devices()) {
      std::string launch;
      if (!lane.pinned().empty()) launch += "; workers see " + lane.pinned();
      if (!lane.cpus().empty()) launch += (launch.empty() ? "; workers on CPUs " : " on CPUs ") + lane.cpus();
      std::printf("    %-8s %s, %d queued%s\n", lane.device().c_str(), lane.state().c_str(), lane.queued(),
                  launch.c_str());
    }
    std::printf("  threads   intra-op %d, inter-op %d; cpu set %s\n", info->config().default_intra_op_threads(),
                info->config().default_inter_op_threads(),
                info->config().cpu_set().empty() ? "all" : info->config().cpu_set().c_str());
    const bool slurm = !info->config().slurm().partition().empty();
    std::printf("  queue     %d queued%s%s\n", info->queued(), slurm ? " in Slurm" : "",
                info->running_job().empty() ? "" : (", running " + info->running_job()).c_str());
    if (slurm) PrintSlurmNodes(*info);
    // The pid only for an admin (daemon/access_rules.h InfoFor); a spare shows by its memory.
    if (info->spare_worker_pid() != 0 || info->spare_worker_rss_bytes() > 0)
      std::printf("  spare     worker%s %s, %.1f MiB resident\n",
                  info->spare_worker_pid() != 0 ? (" pid " + std::to_string(info->spare_worker_pid())).c_str() : "",
                  info->spare_worker_ready() ? "loaded, waiting for the next job" : "loading",
                  static_cast<double>(info->spare_worker_rss_bytes()) / (1 << 20));
    else std::printf("  spare     none%s\n", info->config().no_spare_worker() ? " (no_spare_worker)" : " now");
    std::printf("  sandbox   %s\n", info->config().sandbox() == kSandboxNamespaces
                                        ? "namespaces: each job sees only its own folder, its programs and shared "
                                          "paths; no network"
                                        : "off: jobs see what the worker's user can");
    if (!info->worker_memory().empty()) std::printf("  memory    %s\n", info->worker_memory().c_str());
    if (!slurm)
      std::printf("  wall time %s a job (job_wall_time_s; then its worker is killed)\n",
                  FormatAge(info->config().limits().job_wall_time_s()).c_str());
    if (info->has_noise_floor()) {
      const v1::NoiseFloor& f = info->noise_floor();
      std::printf("  noise     %s old, job %s: %s\n", FormatAge(f.age_s()).c_str(), f.job_id().c_str(),
                  report::DescribeNoiseFloor(f).c_str());
    } else {
      std::printf("  noise     no noise floor yet: run `torchscan-client calibrate`\n");
    }
    for (const v1::NoiseFloor& f : info->gpu_noise_floors())
      std::printf("  noise     %s: %s old, job %s: %s\n", f.device().c_str(), FormatAge(f.age_s()).c_str(),
                  f.job_id().c_str(), report::DescribeNoiseFloor(f).c_str());
    return int{kExitOk};
  });
}

}  // namespace torchscan
