#include "client/job_commands.h"

#include <cstdio>
#include <filesystem>

#include "client/exit_codes.h"
#include "client/progress.h"
#include "daemon/job_spec.h"
#include "report/html_renderer.h"
#include "report/json_io.h"
#include "report/terminal_renderer.h"

namespace torchscan {
namespace {

Evidence ToEvidence(const v1::JobResult& result) {
  if (result.has_comparison()) return Evidence(result.comparison());
  return Evidence(result.report());
}

const google::protobuf::Message& Payload(const v1::JobResult& result) {
  if (result.has_comparison()) return result.comparison();
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
  return absl::ResourceExhaustedError("spec: " + std::to_string(size) + " bytes exceed this daemon's max_upload_bytes " +
                                      std::to_string(info->config().limits().max_upload_bytes()) +
                                      "; send a smaller job (" + std::string(status.message()) + ")");
}

}  // namespace

int ReportError(const absl::Status& status) {
  std::fprintf(stderr, "torchscan-client: %s\n", std::string(status.message()).c_str());
  return ExitCodeFor(status);
}

int ResultExitCode(const v1::JobResult& result) {
  return result.has_comparison() && result.comparison().output_check().status() == v1::OutputCheck::failed
             ? kExitCheckFailed
             : kExitOk;
}

absl::Status WriteEvidence(const v1::JobResult& result, const std::string& dir, std::string* json_path) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::InvalidArgumentError("--output: cannot create folder " + dir + ": " + ec.message());
  const std::string stem = dir + "/" + (result.has_comparison() ? "comparison" : "report");
  for (const auto& [path, text] : {std::pair{stem + ".json", ToJson(Payload(result))},
                                   std::pair{stem + ".html", HtmlRenderer().Render(ToEvidence(result))}})
    if (absl::Status s = WriteFileAtomic(path, text); !s.ok())
      return absl::InvalidArgumentError("--output: " + std::string(s.message()));
  *json_path = stem + ".json";
  return absl::OkStatus();
}

std::string Summarize(const ClientContext& ctx, const v1::JobResult& result) {
  if (ctx.json) return ToJson(Payload(result)) + "\n";
  TerminalOptions options;
  options.color = ctx.color;
  return TerminalRenderer(options).Render(ToEvidence(result));
}

absl::StatusOr<v1::JobResult> RunJobOn(DaemonClient& client, const v1::JobSpec& spec,
                                       const std::function<void(const v1::Job&)>& on_submitted,
                                       const std::function<void(const v1::JobEvent&)>& on_event, v1::Job* finished_job) {
  // Refused here, naming the uploaded files, rather than by gRPC's size limit in words that name none.
  if (absl::StatusOr<v1::DaemonInfo> info = client.Info(); info.ok())
    if (absl::Status s = daemon::CheckUploadSize(spec, info->config().limits().max_upload_bytes()); !s.ok()) return s;
  absl::StatusOr<v1::Job> job = client.Submit(spec);
  if (!job.ok()) return ExplainSubmitRefusal(client, spec, job.status());
  if (on_submitted) on_submitted(*job);
  absl::StatusOr<v1::Job> finished = client.Watch(job->id(), on_event);
  if (!finished.ok()) return finished.status();
  if (finished_job != nullptr) *finished_job = *finished;
  if (finished->state() != v1::Job::succeeded)
    return absl::AbortedError("job " + finished->id() + " " + v1::Job::State_Name(finished->state()) +
                              (finished->error().empty() ? "" : ": " + finished->error()));
  return client.FetchResult(finished->id());
}

int RunJobCommand(const ClientContext& ctx, const v1::JobSpec& spec, const std::string& output_dir) {
  absl::StatusOr<Connection> connection = Connect(ctx);
  if (!connection.ok()) return ReportError(connection.status());
  DaemonClient& client = *connection->client;
  ProgressPrinter progress(stderr, ctx.terminal);
  v1::Job finished;
  absl::StatusOr<v1::JobResult> result = RunJobOn(
      client, spec,
      [&](const v1::Job& job) { std::fprintf(stderr, "[%s] submitted to %s\n", job.id().c_str(), client.address().c_str()); },
      [&](const v1::JobEvent& e) { progress.OnEvent(e); }, &finished);
  progress.Finish();
  if (!result.ok()) return ReportError(result.status());

  if (!output_dir.empty()) {
    std::string json_path;
    if (absl::Status s = WriteEvidence(*result, output_dir, &json_path); !s.ok()) return ReportError(s);
    std::fprintf(stderr, "[%s] wrote %s and its .html\n", finished.id().c_str(), json_path.c_str());
  }
  std::fputs(Summarize(ctx, *result).c_str(), stdout);
  return ResultExitCode(*result);
}

}  // namespace torchscan
