// A JobSpec's MeasurementOptions and comparison settings as the experiment's options
// (core/experiment.h), with the schema's defaults for zero values. No LibTorch headers.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "core/experiment.h"
#include "proto/service.pb.h"

namespace torchscan::daemon {

// Defaults: min_run_time_s 0.2, min_blocks 10, max_run_time_s none, threads 1 each (the
// daemon normally fills its own defaults in first), profile_calls 10; a comparison's check
// is declarative with rtol 1e-4, atol 1e-5 and finite outputs required unless set, or none
// with `skip`. Errors:
//   InvalidArgument naming "spec.options.<field>" for negative or non-finite values,
//     "spec.options.rss" without `rss_child_path`, negative tolerances
//   Unimplemented "spec.compare.check.torchscript" (TorchScript check modules)
absl::StatusOr<ExperimentOptions> ExperimentOptionsFor(const v1::JobSpec& spec, const std::string& rss_child_path);

}  // namespace torchscan::daemon
