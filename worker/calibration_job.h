// A calibrate job in the worker: `pairs` A/A comparisons (core/experiment.h RunComparison of
// the job's workload against itself, with no output check, no diagnostic pass and no RSS
// child), then the machine's noise floor from them (core/noise_floor.h). No LibTorch headers.
#pragma once

#include "absl/status/statusor.h"
#include "core/experiment.h"
#include "proto/service.pb.h"

// (Namespace torchscan::daemon kept from when the worker lived in daemon/.)
namespace torchscan::daemon {

// The job's workload, or when it has none the built-in reference workload: the built-in
// linear model in batch mode (its default input).
v1::WorkloadSpec CalibrationWorkload(const v1::CalibrateJob& job);

// pairs, or kDefaultCalibrationPairs for 0.
int CalibrationPairs(const v1::CalibrateJob& job);

// Runs the pairs with `options` (from ExperimentOptionsFor: the job's measurement options,
// rounds, and check and diagnostics off). Each phase is reported through options.on_phase as
// "pair 3/20: timing baseline"; blocks through options.on_block. Each pair gets a timeline of
// its own (options.timeline is not used). The Calibration holds the noise floor
// (measured_at: when the last pair ended; job_id left for the daemon) and one line per pair.
// Errors: the first pair's error, naming the pair ("pair 1/20: ...").
absl::StatusOr<v1::Calibration> RunCalibration(const v1::CalibrateJob& job, const ExperimentOptions& options);

}  // namespace torchscan::daemon
