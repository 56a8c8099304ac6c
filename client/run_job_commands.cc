#include "client/run_job_commands.h"

#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/compare_forecast.h"
#include "client/exit_codes.h"
#include "client/flag_names.h"
#include "client/interrupt.h"
#include "client/output_folder.h"
#include "client/progress.h"
#include "io/file_io.h"
#include "io/proto_json.h"
#include "report/calibration_html.h"
#include "report/html_renderer.h"
#include "report/noise_floor_text.h"
#include "report/report_json.h"
#include "report/terminal_renderer.h"
#include "spec/job_spec.h"

namespace torchscan {
namespace {

const google::protobuf::Message& Payload(const v1::JobResult& result) {
  if (result.has_comparison()) return result.comparison();
  if (result.has_calibration()) return result.calibration();
  return result.report();
}

// gRPC refuses a request above the daemon's receive limit before torchscand sees it, in words
// that name no setting ("Received message larger than max"): name the limit that was hit.
absl::Status ExplainSubmitRefusal(DaemonClient& client, const v1::JobSpec& spec, const absl::Status& status) {
  if (status.code() != absl::StatusCode::kResourceExhausted ||
      status.message().find("max_upload_bytes") != absl::string_view::npos)
    return status;
  absl::StatusOr<v1::DaemonInfo> info = client.Info();
  const int64_t size = static_cast<int64_t>(spec.ByteSizeLong());
  if (!info.ok() || size <= info->config().limits().max_upload_bytes()) return status;
  return absl::ResourceExhaustedError("spec: " + std::to_string(size) +
                                      " bytes exceed this daemon's max_upload_bytes " +
                                      std::to_string(info->config().limits().max_upload_bytes()) +
                                      "; send a smaller job (" + std::string(status.message()) + ")");
}

absl::Status WithMessage(const absl::Status& status, const std::string& message) {
  return absl::Status(status.code(), message);
}

// Cancels `job` after an interrupt and waits (at most 15 s) until the daemon says it ended.
void CancelAfterInterrupt(DaemonClient& client, const v1::Job& job) {
  absl::StatusOr<v1::Job> cancelled = client.Cancel(job.id());
  if (!cancelled.ok()) {
    std::fprintf(stderr, "torchscan-client: could not cancel job %s: %s\n", job.id().c_str(),
                 std::string(cancelled.status().message()).c_str());
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  v1::Job now = *cancelled;
  while (!IsFinished(now.state()) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    absl::StatusOr<v1::Job> seen = client.GetJob(job.id());
    if (!seen.ok()) break;
    now = *seen;
  }
  std::fprintf(stderr, "[%s] %s\n", job.id().c_str(), v1::Job::State_Name(now.state()).c_str());
}

// Records a failure in `out` (--json) and reports it on stderr; returns its exit code.
int Failed(const absl::Status& status, v1::DaemonJobOutput* out) {
  out->set_error(std::string(status.message()));
  return ReportError(status);
}

// Writes the evidence of job `id` where it belongs; on failure with a private daemon (whose
// result is gone once the command ends), into a fresh folder under /tmp instead. Records the
// files written (and why not where asked) in `out`.
int WriteJobEvidence(const v1::JobResult& result, const std::string& id, const std::string& address,
                     bool private_daemon, const JobRunOptions& options, v1::DaemonJobOutput* out) {
  const std::string dir = options.output_dir.empty() ? DefaultOutputFolder(id) : options.output_dir;
  std::string json_path;
  absl::Status written = WriteEvidence(result, dir, &json_path);
  if (written.ok()) {
    std::fprintf(stderr, "[%s] wrote %s%s\n", id.c_str(), json_path.c_str(),
                 result.has_calibration() ? "" : " and its .html");
    SetEvidencePaths(json_path, out);
    return kExitOk;
  }
  if (!private_daemon)
    return Failed(WithMessage(written, absl::StrCat("job ", id, " succeeded, but its evidence could not be written: ",
                                                    written.message(), "; fetch it again with `",
                                                    JobsCommandLine(address, "fetch " + id + " --output DIR"), "`")),
                  out);
  out->set_error(absl::StrCat("job ", id, " succeeded, but its evidence could not be written: ", written.message()));
  std::string fallback = "/tmp/torchscan-" + id + "-XXXXXX";
  if (::mkdtemp(fallback.data()) != nullptr && WriteEvidence(result, fallback, &json_path).ok()) {
    std::fprintf(stderr,
                 "torchscan-client: job %s succeeded, but its evidence could not be written: %s; the private daemon "
                 "stops with this command, so it was saved in %s instead\n",
                 id.c_str(), std::string(written.message()).c_str(), fallback.c_str());
    SetEvidencePaths(json_path, out);
  } else {
    std::fprintf(stderr, "torchscan-client: job %s succeeded, but its evidence could not be written: %s\n", id.c_str(),
                 std::string(written.message()).c_str());
  }
  return ExitCodeFor(written);
}

// Runs the job on the daemon of `ctx` (after the --output check), filling `out` as it goes.
int RunJobAndCollect(const ClientContext& ctx, const v1::JobSpec& spec, const JobRunOptions& options,
                     v1::DaemonJobOutput* out) {
  std::mutex waiting_mutex;
  DaemonClient* waiting = nullptr;  // the client whose waits an interrupt ends
  InterruptWatch interrupts([&] {
    std::lock_guard<std::mutex> lock(waiting_mutex);
    if (waiting != nullptr) waiting->StopWatching();
  });
  absl::StatusOr<Connection> connection = Connect(ctx);
  if (!connection.ok()) return Failed(connection.status(), out);
  DaemonClient& client = *connection->client;
  out->set_daemon(client.address());
  {
    std::lock_guard<std::mutex> lock(waiting_mutex);
    waiting = &client;
  }
  if (interrupts.interrupted()) {
    out->set_error(absl::StrCat(InterruptName(interrupts.signal()), " before the job was submitted: nothing runs"));
    std::fprintf(stderr, "torchscan-client: %s\n", out->error().c_str());
    return kExitInterrupted;
  }
  const bool private_daemon = connection->private_daemon();
  ProgressPrinter progress(stderr, ctx.terminal);
  v1::Job submitted, finished;
  absl::StatusOr<v1::JobResult> result = RunJobOn(
      client, spec, !private_daemon,
      [&](const v1::Job& job) {
        submitted = job;
        std::fprintf(stderr, "[%s] submitted to %s\n", job.id().c_str(), client.address().c_str());
      },
      [&](const v1::JobEvent& e) { progress.OnEvent(e); }, &finished);
  progress.Finish();
  if (!finished.id().empty() || !submitted.id().empty())
    *out->mutable_job() = finished.id().empty() ? submitted : finished;
  if (interrupts.interrupted() && !submitted.id().empty() && !IsFinished(finished.state())) {
    out->set_error(absl::StrCat(InterruptName(interrupts.signal()), " while waiting for job ", submitted.id()));
    HandleInterruptedJob(client, submitted, options.cancel_on_interrupt, private_daemon, interrupts.signal());
    return kExitInterrupted;
  }
  if (!result.ok()) {
    const absl::Status& s = result.status();
    return Failed(options.spec_from_flags ? WithMessage(s, WithFlagNames(std::string(s.message()))) : s, out);
  }
  *out->mutable_result() = *result;
  const int written = WriteJobEvidence(*result, finished.id(), client.address(), private_daemon, options, out);
  if (!ctx.json) std::fputs(Summarize(ctx, *result).c_str(), stdout);
  return written != kExitOk ? written : ResultExitCode(*result, ctx.gate);
}

}  // namespace

std::string CalibrationSummary(const v1::Calibration& calibration) {
  const v1::NoiseFloor& f = calibration.noise_floor();
  std::string out =
      absl::StrCat("TorchScan calibration: ", f.workload(), "\n  noise     ", report::DescribeNoiseFloor(f), "\n");
  absl::StrAppend(
      &out, "  A/A       false labels ", f.false_labels(), "/", f.pairs(), ", false claims ", f.false_claims(), "/",
      f.pairs(), "; relative median differences ", absl::StrFormat("%+.1f%%", f.ratio_min() * 100), " to ",
      absl::StrFormat("%+.1f%%", f.ratio_max() * 100), " (5th-95th percentile ",
      absl::StrFormat("%+.1f%%", f.ratio_p5() * 100), " to ", absl::StrFormat("%+.1f%%", f.ratio_p95() * 100), ")\n");
  if (f.has_forecast())
    absl::StrAppend(&out, "  fixed     a --fixed-length compare resolves ",
                    f.has_resolvable_change() ? absl::StrFormat("about %.1f%%", f.resolvable_change() * 100)
                                              : std::string("an unknown change"),
                    "; a build pair here takes ", absl::StrFormat("%.2f", f.forecast().build_pair_s()),
                    " s, the planned rounds ", absl::StrFormat("%.2f", f.forecast().planned_s()), " s\n");
  for (int i = 0; i < calibration.pairs_size(); ++i) {
    const v1::CalibrationPair& p = calibration.pairs(i);
    absl::StrAppend(&out, "  pair ", i + 1, "    ", p.latency_change(), ", paired ", p.claim(),
                    p.has_median_ratio() ? absl::StrFormat(", median ratio %.4f", p.median_ratio()) : "", "\n");
  }
  return out;
}

void HandleInterruptedJob(DaemonClient& client, const v1::Job& job, bool cancel, bool private_daemon, int signal) {
  const char* what = InterruptName(signal);
  if (cancel || private_daemon) {
    std::fprintf(stderr, "torchscan-client: %s: cancelling job %s\n", what, job.id().c_str());
    CancelAfterInterrupt(client, job);
    if (private_daemon) std::fprintf(stderr, "torchscan-client: the private daemon stops with this command\n");
    return;
  }
  std::fprintf(stderr,
               "torchscan-client: %s: job %s keeps running on %s; cancel it with `%s`, or collect its result later "
               "with `%s`\n",
               what, job.id().c_str(), client.address().c_str(),
               JobsCommandLine(client.address(), "cancel " + job.id()).c_str(),
               JobsCommandLine(client.address(), "fetch " + job.id() + " --output DIR").c_str());
}

std::string JobsCommandLine(const std::string& address, const std::string& what) {
  return "torchscan-client --daemon " + address + " jobs " + what;
}

int ReportError(const absl::Status& status) {
  std::fprintf(stderr, "torchscan-client: %s\n", std::string(status.message()).c_str());
  return ExitCodeFor(status);
}

int ResultExitCode(const v1::JobResult& result, const GateOptions& gate) {
  if (!result.has_comparison()) return kExitOk;
  if (result.comparison().output_check().status() == v1::OutputCheck::failed) return kExitCheckFailed;
  if (std::optional<std::string> failure = GateFailure(result.comparison(), gate)) {
    std::fprintf(stderr, "torchscan-client: %s (exit %d)\n", failure->c_str(), kExitGateFailed);
    return kExitGateFailed;
  }
  return kExitOk;
}

absl::Status WriteEvidence(const v1::JobResult& result, const std::string& dir, std::string* json_path) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::InvalidArgumentError("--output: cannot create folder " + dir + ": " + ec.message());
  if (result.has_calibration()) {
    const std::vector<std::string> files = CalibrationFiles();  // calibration.json, calibration.html
    for (const auto& [path, text] :
         {std::pair{dir + "/" + files[0], ToJson(result.calibration())},
          std::pair{dir + "/" + files[1], report::RenderCalibrationHtml(result.calibration())}})
      if (absl::Status s = WriteFileAtomic(path, text); !s.ok())
        return absl::InvalidArgumentError("--output: " + std::string(s.message()));
    *json_path = dir + "/" + files[0];
    return absl::OkStatus();
  }
  const std::string stem = dir + "/" + (result.has_comparison() ? "comparison" : "report");
  if (absl::Status s = WriteEvidenceFiles(result, stem); !s.ok()) return s;
  *json_path = stem + ".json";
  return absl::OkStatus();
}

absl::Status WriteEvidenceFiles(const v1::JobResult& result, const std::string& stem) {
  for (const auto& [path, text] : {std::pair{stem + ".json", ToJson(Payload(result))},
                                   std::pair{stem + ".html", report::HtmlRenderer().Render(EvidenceOf(result))}})
    if (absl::Status s = WriteFileAtomic(path, text); !s.ok())
      return absl::InvalidArgumentError("--output: " + std::string(s.message()));
  return absl::OkStatus();
}

report::Evidence EvidenceOf(const v1::JobResult& result) {
  if (result.has_comparison()) return report::Evidence(result.comparison());
  return report::Evidence(result.report());
}

std::string Summarize(const ClientContext& ctx, const v1::JobResult& result) {
  if (ctx.json) return ToJson(Payload(result)) + "\n";
  if (result.has_calibration()) return CalibrationSummary(result.calibration());
  report::TerminalOptions options;
  options.color = ctx.color;
  return report::TerminalRenderer(options).Render(EvidenceOf(result));
}

absl::StatusOr<v1::JobResult> RunJobOn(DaemonClient& client, const v1::JobSpec& spec, bool resident,
                                       const std::function<void(const v1::Job&)>& on_submitted,
                                       const std::function<void(const v1::JobEvent&)>& on_event,
                                       v1::Job* finished_job) {
  // Refused here, naming the uploaded files, rather than by gRPC's size limit in words that name none.
  if (absl::StatusOr<v1::DaemonInfo> info = client.Info(); info.ok()) {
    if (absl::Status s = spec::CheckUploadSize(spec, info->config().limits().max_upload_bytes()); !s.ok()) return s;
    // Before a compare: what it is expected to resolve here, and how long that takes.
    if (const std::string expected = CompareExpectation(spec, info->noise_floor()); !expected.empty())
      std::fprintf(stderr, "torchscan-client: %s\n", expected.c_str());
  }
  absl::StatusOr<v1::Job> job = client.Submit(spec);
  if (!job.ok()) return ExplainSubmitRefusal(client, spec, job.status());
  if (on_submitted) on_submitted(*job);
  const std::string& id = job->id();
  absl::StatusOr<v1::Job> finished = client.Watch(id, on_event);
  if (!finished.ok()) {
    if (finished.status().code() == absl::StatusCode::kCancelled) return finished.status();  // interrupted
    return WithMessage(
        finished.status(),
        absl::StrCat("lost contact with the daemon while waiting for job ", id, ": ", finished.status().message(),
                     resident
                         ? absl::StrCat("; the job may still run: follow it with `",
                                        JobsCommandLine(client.address(), "watch " + id), "` and collect it with `",
                                        JobsCommandLine(client.address(), "fetch " + id + " --output DIR"), "`")
                         : "; the private daemon's jobs end with it"));
  }
  if (finished_job != nullptr) *finished_job = *finished;
  if (finished->state() != v1::Job::succeeded)
    return absl::AbortedError("job " + finished->id() + " " + v1::Job::State_Name(finished->state()) +
                              (finished->error().empty() ? "" : ": " + finished->error()));
  absl::StatusOr<v1::JobResult> result = client.FetchResult(id);
  if (!result.ok())
    return WithMessage(
        result.status(),
        absl::StrCat("job ", id, " succeeded, but fetching its result failed: ", result.status().message(),
                     resident ? absl::StrCat("; try again with `",
                                             JobsCommandLine(client.address(), "fetch " + id + " --output DIR"), "`")
                              : ""));
  return result;
}

int RunJobCommand(const ClientContext& ctx, const v1::JobSpec& spec, const JobRunOptions& options) {
  const absl::Status output_ok =
      options.output_dir.empty()
          ? CheckCurrentFolderWritable()
          : CheckOutputFolder(options.output_dir,
                              spec.has_calibrate() ? CalibrationFiles() : EvidenceFiles(spec.has_compare()),
                              options.force);
  if (!output_ok.ok()) return ReportError(output_ok);
  v1::JobCommandOutput output;
  const int exit_code = RunJobAndCollect(ctx, spec, options, output.add_daemons());
  if (ctx.json) PrintJobCommandOutput(&output, exit_code);
  return exit_code;
}

int CalibrateEachNode(const ClientContext& ctx, const v1::JobSpec& spec, const JobRunOptions& options) {
  std::vector<std::string> nodes;
  {
    absl::StatusOr<Connection> connection = Connect(ctx);
    if (!connection.ok()) return ReportError(connection.status());
    absl::StatusOr<v1::DaemonInfo> info = connection->client->Info();
    if (!info.ok()) return ReportError(info.status());
    for (const v1::SlurmNode& node : info->nodes()) nodes.push_back(node.name());
    if (nodes.empty())
      return ReportError(absl::FailedPreconditionError(
          absl::StrCat("--node all: ", connection->client->address(),
                       info->config().slurm().partition().empty()
                           ? " runs jobs on its own machine, not on Slurm nodes; leave --node out"
                           : " lists no node of its Slurm partition (sinfo failed; check `scontrol ping`)")));
  }
  int worst = kExitOk;
  for (const std::string& node : nodes) {
    v1::JobSpec one = spec;
    one.set_node(node);
    JobRunOptions each = options;
    if (!options.output_dir.empty()) each.output_dir = options.output_dir + "/" + node;
    std::fprintf(stderr, "torchscan-client: calibrating node %s\n", node.c_str());
    worst = std::max(worst, RunJobCommand(ctx, one, each));
  }
  return worst;
}

void SetEvidencePaths(const std::string& json_path, v1::DaemonJobOutput* out) {
  out->set_json_path(json_path);
  if (out->result().has_calibration()) return;  // no page
  const size_t dot = json_path.rfind('.');
  out->set_html_path(json_path.substr(0, dot) + ".html");
}

void PrintJobCommandOutput(v1::JobCommandOutput* output, int exit_code) {
  output->set_exit_code(exit_code);
  std::string json = ToJson(*output);
  if (json.empty() || json.back() != '\n') json += '\n';
  std::fputs(json.c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace torchscan
