// Commands that run a job on a daemon and collect its evidence: measure, compare, example.
// Each submits the spec, shows live progress on stderr, waits, fetches the report or
// comparison, writes <kind>.json and <kind>.html into the output folder (when given), and
// prints the terminal summary (or the JSON with --json). Returns an exit code (exit_codes.h):
// a failed output check is 1 even though the comparison was written.
#pragma once

#include <functional>
#include <string>

#include "client/client_context.h"
#include "proto/service.pb.h"

namespace torchscan {

int RunJobCommand(const ClientContext& ctx, const v1::JobSpec& spec, const std::string& output_dir);

// Submits `spec` to `client`, calls `on_submitted` with the queued job, forwards watch events
// and returns the fetched result of the succeeded job; `finished_job` (may be null) gets the
// job as it ended. Errors: a spec over the daemon's max_upload_bytes, refused before it is
// sent, naming the uploaded files (daemon/job_spec.h CheckUploadSize); the daemon's refusal
// (a refusal by gRPC's size limit is explained in terms of max_upload_bytes); Aborted
// "job ID STATE: reason" when it did not succeed.
absl::StatusOr<v1::JobResult> RunJobOn(DaemonClient& client, const v1::JobSpec& spec,
                                       const std::function<void(const v1::Job&)>& on_submitted,
                                       const std::function<void(const v1::JobEvent&)>& on_event, v1::Job* finished_job);

// Writes `result` as <kind>.json and <kind>.html into `dir` (created if missing); fills
// `json_path` with the JSON file written.
absl::Status WriteEvidence(const v1::JobResult& result, const std::string& dir, std::string* json_path);

// The terminal summary (or pretty JSON when ctx.json) of a result.
std::string Summarize(const ClientContext& ctx, const v1::JobResult& result);

// 1 for a comparison whose output check failed, else 0.
int ResultExitCode(const v1::JobResult& result);

// Prints "torchscan-client: <message>" to stderr and returns the status's exit code.
int ReportError(const absl::Status& status);

}  // namespace torchscan
