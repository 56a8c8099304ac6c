// Commands that run a job on a daemon and collect its evidence: measure, compare, example,
// calibrate (whose evidence is calibration.json and calibration.html).
// Each checks where the evidence will go before submitting (output_folder.h), submits the
// spec, shows live progress on stderr, waits, fetches the report or comparison, writes
// <kind>.json and <kind>.html into --output (or ./torchscan-<job id>/, whose path is
// printed), and prints the terminal summary. Returns an exit code (exit_codes.h): a failed
// output check is 1 even though the comparison was written.
//
// With --json, stdout holds one JSON document instead, whatever the outcome once --output was
// checked: JobCommandOutput (proto/service.proto) with the exit code and, per daemon, its
// address, the job as last seen (id, state, error, latency_change, output_check), the files
// written, the error and the evidence itself.
//
// Once the daemon accepted the job, every failure names the job id, and, on a resident
// daemon, the `jobs fetch` (or `jobs watch`) command that collects it later. Ctrl-C or
// SIGTERM while waiting (exit 130): a private daemon's job is cancelled (the daemon stops
// with the command); a resident daemon's job keeps running and the message says how to
// cancel it (`jobs cancel ID`) or fetch it, unless --cancel-on-interrupt cancels it. Nothing
// is asked.
#pragma once

#include <functional>
#include <string>

#include "client/client_context.h"
#include "proto/service.pb.h"
#include "report/report_json.h"

namespace torchscan {

struct JobRunOptions {
  std::string output_dir;            // --output; "" (default): ./torchscan-<job id>/
  bool force = false;                // --force: replace evidence an earlier run left in --output
  bool cancel_on_interrupt = false;  // --cancel-on-interrupt: Ctrl-C cancels a resident daemon's job too
  bool spec_from_flags = true;       // messages name the flags of JobSpec fields (false for --job FILE)
};

int RunJobCommand(const ClientContext& ctx, const v1::JobSpec& spec, const JobRunOptions& options);
// `calibrate --node all`: the calibrate job `spec` once per node of the Slurm front's partition
// (DaemonInfo.nodes), one after another, each node's evidence in <output>/<node>/; the worst
// exit code. A daemon without nodes: an error naming --node all.
int CalibrateEachNode(const ClientContext& ctx, const v1::JobSpec& spec, const JobRunOptions& options);

// Submits `spec` to `client`, calls `on_submitted` with the queued job, forwards watch events
// and returns the fetched result of the succeeded job; `finished_job` (may be null) gets the
// job as it ended. Errors: a spec over the daemon's max_upload_bytes, refused before it is
// sent, naming the uploaded files (spec/job_spec.h CheckUploadSize); the daemon's refusal
// (a refusal by gRPC's size limit is explained in terms of max_upload_bytes); Cancelled when
// the client's watches were stopped (StopWatching: an interrupt); after acceptance, errors
// naming the job id: Aborted "job ID STATE: reason" when it did not succeed, or the lost
// connection / failed fetch with, when `resident`, the `torchscan-client --daemon ADDR jobs
// watch|fetch ID` that picks it up.
absl::StatusOr<v1::JobResult> RunJobOn(DaemonClient& client, const v1::JobSpec& spec, bool resident,
                                       const std::function<void(const v1::Job&)>& on_submitted,
                                       const std::function<void(const v1::JobEvent&)>& on_event, v1::Job* finished_job);

// After Ctrl-C or SIGTERM (`signal`) while waiting for `job`: with `cancel` or on a private
// daemon, cancels it and waits (at most 15 s) until the daemon says it ended; else says that
// it keeps running and gives the `jobs cancel ID` and `jobs fetch ID` commands. Asks nothing.
void HandleInterruptedJob(DaemonClient& client, const v1::Job& job, bool cancel, bool private_daemon, int signal);

// Writes `result` as <kind>.json and <kind>.html into `dir` (created if missing); fills
// `json_path` with the JSON file written.
absl::Status WriteEvidence(const v1::JobResult& result, const std::string& dir, std::string* json_path);

// Writes a report's or comparison's `result` as <stem>.json and its page <stem>.html (the
// folder must exist); InvalidArgument naming --output when a file cannot be written.
absl::Status WriteEvidenceFiles(const v1::JobResult& result, const std::string& stem);

// The report or comparison of `result`, as the renderers take it (a calibration has none:
// an empty report).
report::Evidence EvidenceOf(const v1::JobResult& result);

// Sets `out`'s json_path and, beside it, html_path (<kind>.json -> <kind>.html).
void SetEvidencePaths(const std::string& json_path, v1::DaemonJobOutput* out);

// --json: `output`, with its exit_code set to `exit_code`, as one JSON document on stdout.
void PrintJobCommandOutput(v1::JobCommandOutput* output, int exit_code);

// "torchscan-client --daemon ADDR jobs <what>": a command to give the user.
std::string JobsCommandLine(const std::string& address, const std::string& what);

// The terminal summary (or the evidence's pretty JSON when ctx.json) of a result.
std::string Summarize(const ClientContext& ctx, const v1::JobResult& result);

// A calibration's terminal summary: the noise floor sentence, the A/A counts and spread, one
// line per pair.
std::string CalibrationSummary(const v1::Calibration& calibration);

// 1 for a comparison whose output check failed; else 6 (kExitGateFailed) for a comparison
// that `gate` fails, saying why on stderr; else 0.
int ResultExitCode(const v1::JobResult& result, const GateOptions& gate = {});

// Prints "torchscan-client: <message>" to stderr and returns the status's exit code.
int ReportError(const absl::Status& status);

}  // namespace torchscan
