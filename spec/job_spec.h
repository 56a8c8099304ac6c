// Checks a submitted JobSpec before it is queued, and fills in the daemon's defaults.
// gRPC-free and LibTorch-free: only what can be decided without building the workload
// (the worker's BuildWorkload checks the rest and fails the job naming the field).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/service.pb.h"
#include "proto/spec_limits.h"

namespace torchscan::spec {

// What the daemon accepts.
struct JobSpecLimits {
  int64_t max_upload_bytes = kDefaultMaxUploadBytes;  // serialized spec size limit
  std::vector<std::string> devices = {"cpu"};         // devices a workload may name ("" means cpu)
  bool rss_available = false;                         // an RSS child is configured
  int max_threads = kMaxThreads;                      // thread counts above are refused
  double max_run_time_s = kMaxRunTimeS;               // min/max_run_time_s above are refused
  // Jobs run sandboxed (DaemonConfig.sandbox "namespaces"): a path on the daemon's machine
  // (TorchScriptSpec.path, InputSpec.tensor_file) must lie in one of `shared_paths`.
  bool sandboxed = false;
  std::vector<std::string> shared_paths{};
};

// The limits of a (validated, defaulted) daemon configuration.
JobSpecLimits LimitsOf(const v1::DaemonConfig& config);

// OK when `spec` (its serialized size, uploaded files included) is at most
// `max_upload_bytes` (0 or less: no limit). Otherwise ResourceExhausted "spec: N bytes exceed
// this daemon's max_upload_bytes M (...)" listing the files sent with it (module_bytes and
// tensor_bytes by source_name, largest first, with their sizes) and the ways out: paths on
// the daemon's machine instead (torchscan-client --daemon-path), or a larger max_upload_bytes.
// The client checks this before it submits; the daemon again in ValidateJobSpec.
absl::Status CheckUploadSize(const v1::JobSpec& spec, int64_t max_upload_bytes);

// What a SubmitRequest holds besides its spec: the spec field's tag (1 byte) and length
// (a varint of at most 5 bytes, as protobuf lengths are below 2 GiB).
constexpr int64_t kSubmitRequestFraming = 6;

// A SubmitRequest of `request_bytes` as it arrived, before it is parsed (so that an oversize
// one costs no parse): OK when at most max_upload_bytes + kSubmitRequestFraming (0 or less:
// no limit). Otherwise ResourceExhausted "spec: the request's N bytes exceed this daemon's
// max_upload_bytes M (...); refused unread, ..." with the same ways out as CheckUploadSize
// (its files cannot be listed: it was not read). A request within this bound may still hold
// a spec over the limit by a few bytes, or unknown fields: CheckUploadSize decides after the parse.
absl::Status CheckSubmitRequestSize(int64_t request_bytes, int64_t max_upload_bytes);

// OK, or:
//   ResourceExhausted  CheckUploadSize's refusal
//   InvalidArgument    naming the field under "spec.", e.g. "spec: set exactly one of measure,
//                      compare or calibrate", "spec.calibrate.pairs: must be 0 ... up to
//                      kMaxCalibrationPairs", "spec.calibrate.rounds" above kMaxRounds,
//                      "spec.compare.baseline: required",
//                      "spec.measure.workload.model: set builtin or torchscript",
//                      "spec.options.min_run_time_s: -1 is negative", a workload device
//                      spec::ParseDeviceName refuses or the daemon does not own, rss or
//                      instructions asked of a job on a GPU (spec/device_name.h), a negative tolerance, an unknown enum
//                      value, a negative or int64-overflowing generated shape, empty module_bytes or tensor_bytes, a
//                      TorchScript workload without inputs, thread counts above max_threads, run times above
//                      max_run_time_s, paths (and source names) over kMaxPathBytes, a compare job without a check or
//                      with tolerances not given (ValidateOutputCheck), input_metadata keys or values outside
//                      ValidateInputMetadata's rule, rounds above kMaxRounds, a control character in any text field
//                      ("spec.label: holds control character U+0000 at byte 1; ...", the rule of spec/printable_text.h)
//   FailedPrecondition "spec.options.rss: ..." when no RSS child is configured
absl::Status ValidateJobSpec(const v1::JobSpec& spec, const JobSpecLimits& limits);

// The rules of one WorkloadSpec that need nothing of the daemon, in one place: the daemon
// checks them in ValidateJobSpec (besides its own: devices, shared paths) and the worker again
// before it builds (workloads/workload.cc), so that a job the daemon queued is never refused for
// one of them. InvalidArgument naming `field`'s sub-field:
// no model; an unknown built-in; freeze, optimize_for_inference, work_units or work_unit on a
// built-in; a TorchScript model without a source or inputs; negative work_units; an unknown
// dtype or execution_mode; an input without a source, with a bad generated shape (negative,
// or more elements than int64 counts), empty tensor_bytes or a path over kMaxPathBytes;
// input_metadata outside ValidateInputMetadata's rule.
absl::Status ValidateWorkloadFields(const std::string& field, const v1::WorkloadSpec& workload);

// The parts both the daemon and the worker check. InvalidArgument naming
// "spec.options.<field>" for a negative or non-finite number.
absl::Status ValidateMeasurementOptions(const v1::MeasurementOptions& options);
// TorchScan does not choose a tolerance, so a compare job must carry its check. InvalidArgument
// naming "spec.compare.check" (none set) or "spec.compare.check.skip" (false), with the three
// choices (declarative rtol+atol, a TorchScript module, skip); naming
// "spec.compare.check.declarative.rtol"/"atol" when one is missing, negative or not finite,
// ".compare_dtype" for an unknown value; "spec.compare.check.torchscript" without a source.
absl::Status ValidateOutputCheck(const v1::OutputCheckSpec& check);

// WorkloadSpec.input_metadata (caller-supplied input metadata), named `field` in errors
// (e.g. "spec.measure.workload.input_metadata", or "--metadata" for the client's flags).
// InvalidArgument naming `field` for more than kMaxInputMetadataEntries entries, a key that is
// empty, longer than kMaxInputMetadataKeyBytes, not of [A-Za-z0-9_.-], "seed" or starting
// "input." (TorchScan's own fields); naming "<field>.<key>" for a value over
// kMaxInputMetadataValueBytes (proto/spec_limits.h).
absl::Status ValidateInputMetadata(const std::string& field,
                                   const google::protobuf::Map<std::string, std::string>& metadata);

// `value` in double quotes, C-escaped and cut to 64 bytes ("... (N bytes)"), for error
// messages: they travel in gRPC metadata, where a long echo (a 10 KB id) would turn the
// answer into a metadata-size error that names nothing.
std::string QuoteForMessage(const std::string& value);

// `spec` with thread counts of 0 replaced by the daemon's default_{intra,inter}_op_threads,
// so that the stored job records the threads it ran with.
v1::JobSpec WithDaemonDefaults(v1::JobSpec spec, const v1::DaemonConfig& config);

// `spec` with the bytes of uploaded files (every module_bytes and tensor_bytes) emptied; the
// oneof stays set and source_name names each file. What a job's record holds and what
// GetJob, ListJobs and Watch return: the uploaded files (up to max_upload_bytes) go to the
// worker once, in the job folder's spec file, rather than with every listing and event.
v1::JobSpec WithoutUploadedBytes(v1::JobSpec spec);

// The workloads a job builds: a measure's, a compare's baseline and candidate, a calibration's
// own (none for a calibration of the built-in default). Pointers into `spec`.
std::vector<const v1::WorkloadSpec*> JobWorkloads(const v1::JobSpec& spec);

// The devices a job's workloads run on, normalised and each once, in workload order, e.g.
// {"cpu"} or {"cuda:1", "cuda:0"}; a name that does not parse as it is written.
std::vector<std::string> JobDeviceNames(const v1::JobSpec& spec);

// How many GPUs the job needs visible: N + 1 for its highest cuda:N (CUDA numbers the GPUs a
// process is given from 0), 0 for a CPU job or device names that do not parse.
int GpusNeeded(const v1::JobSpec& spec);

}  // namespace torchscan::spec
