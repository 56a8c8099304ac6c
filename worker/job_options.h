// A JobSpec's MeasurementOptions and comparison settings as the experiment's options
// (experiment/experiment.h), with the schema's defaults for zero values. No LibTorch headers.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "experiment/experiment.h"
#include "proto/service.pb.h"

// (Namespace torchscan::daemon kept from when the worker lived in daemon/.)
namespace torchscan::worker {

// Defaults (proto/spec_limits.h): min_run_time_s kDefaultMinRunTimeS, min_blocks
// kDefaultMinBlocks, max_run_time_s none, threads kDefaultIntraOpThreads and
// kDefaultInterOpThreads (the daemon normally fills its own defaults in first),
// profile_calls kDefaultProfileCalls, rounds kDefaultRounds; a comparison's check
// is the job's own (declarative rtol/atol/compare_dtype, a TorchScript module, or none with
// `skip`): there is no default tolerance. A calibrate job: its rounds, no check, no
// diagnostics and no RSS child (the options' rss and skip_diagnostics are ignored). Errors:
//   InvalidArgument naming "spec.options.<field>" for negative or non-finite values,
//     "spec.options.rss" without `rss_child_path`, "spec.compare.check" when no check is
//     chosen, tolerances missing, negative or not finite (ValidateOutputCheck)
absl::StatusOr<experiment::ExperimentOptions> ExperimentOptionsFor(const v1::JobSpec& spec,
                                                                   const std::string& rss_child_path);

}  // namespace torchscan::worker
