// Checks a submitted JobSpec before it is queued, and fills in the daemon's defaults.
// gRPC-free and LibTorch-free: only what can be decided without building the workload
// (the worker's BuildWorkload checks the rest and fails the job naming the field).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/service.pb.h"

namespace torchscan::daemon {

// What the daemon accepts.
struct JobSpecLimits {
  int64_t max_upload_bytes = int64_t{64} << 20;  // serialized spec size limit; default 64 MiB
  std::vector<std::string> devices = {"cpu"};    // devices a workload may name ("" means cpu)
  bool rss_available = false;                    // an RSS child is configured
  int max_threads = 4096;                        // thread counts above are refused
  double max_run_time_s = 86400;                 // min/max_run_time_s above (one day) are refused
};

// The limits of a (validated, defaulted) daemon configuration.
JobSpecLimits LimitsOf(const v1::DaemonConfig& config);

// OK, or:
//   ResourceExhausted  "spec: N bytes exceed this daemon's max_upload_bytes M"
//   InvalidArgument    naming the field under "spec.", e.g. "spec: set exactly one of measure
//                      or compare", "spec.compare.baseline: required",
//                      "spec.measure.workload.model: set builtin or torchscript",
//                      "spec.options.min_run_time_s: -1 is negative", a workload device the
//                      daemon does not own, a negative tolerance, an unknown enum value, a
//                      negative or int64-overflowing generated shape, empty module_bytes, a
//                      TorchScript workload without inputs, thread counts above max_threads,
//                      run times above max_run_time_s, paths over 4096 bytes, a control
//                      character in any text field ("spec.label: holds control character
//                      U+0000 at byte 1; ...", the rule of report/printable_text.h)
//   Unimplemented      "spec.compare.check.torchscript: ..." (TorchScript check modules)
//   FailedPrecondition "spec.options.rss: ..." when no RSS child is configured
absl::Status ValidateJobSpec(const v1::JobSpec& spec, const JobSpecLimits& limits);

// The parts both the daemon and the worker check. InvalidArgument naming
// "spec.options.<field>" for a negative or non-finite number.
absl::Status ValidateMeasurementOptions(const v1::MeasurementOptions& options);
// InvalidArgument naming "spec.compare.check.declarative.rtol"/"atol" for negative
// tolerances; Unimplemented naming "spec.compare.check.torchscript".
absl::Status ValidateOutputCheck(const v1::OutputCheckSpec& check);

// `value` in double quotes, C-escaped and cut to 64 bytes ("... (N bytes)"), for error
// messages: they travel in gRPC metadata, where a long echo (a 10 KB id) would turn the
// answer into a metadata-size error that names nothing.
std::string QuoteForMessage(const std::string& value);

// `spec` with thread counts of 0 replaced by the daemon's default_{intra,inter}_op_threads,
// so that the stored job records the threads it ran with.
v1::JobSpec WithDaemonDefaults(v1::JobSpec spec, const v1::DaemonConfig& config);

}  // namespace torchscan::daemon
