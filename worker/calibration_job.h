// A calibrate job in the worker: `pairs` A/A comparisons of the job's workload against itself
// (no output check, no diagnostic pass, no RSS child), then the machine's noise floor from
// them (core/noise_floor.h). No LibTorch: each pair runs as a compare job in a fresh worker
// process of its own (worker/fresh_comparison.h), one after the other, within this one job.
//
// Why a fresh process per pair: a compare job always runs in a fresh worker, and the noise
// floor must be the noise such a job sees. Measured on the built-in linear model at the
// default settings (0.2 s, 40 rounds, 1 thread) when all pairs ran inside one worker process:
// 12 separate compare jobs gave 0/12 paired claims and median ratios 0.974..1.007, while one
// calibration gave 2/10 false claims with ratios 0.89..1.09, and 2/20 and 7/20 with ratios
// as far as 0.28 and 4.28 in others. Pairs in one process did not see the noise of compare jobs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "proto/service.pb.h"

// (Namespace torchscan::daemon kept from when the worker lived in daemon/.)
namespace torchscan::worker {

// The job's workload, or when it has none the built-in reference workload: the built-in
// linear model in batch mode (its default input).
v1::WorkloadSpec CalibrationWorkload(const v1::CalibrateJob& job);

// pairs, or kDefaultCalibrationPairs for 0.
int CalibrationPairs(const v1::CalibrateJob& job);

// The compare job one pair runs, from a calibrate JobSpec: the workload as baseline and
// candidate, the check skipped, the calibration's rounds, its label and options with the
// diagnostics skipped and rss off (what a calibration ignores).
v1::JobSpec CalibrationPairSpec(const v1::JobSpec& calibrate_spec);

struct CalibrationRun {
  std::string worker_path;  // torchscan-worker, run once per pair (the worker passes /proc/self/exe)
  std::string job_dir;      // the job's folder: pair I's job runs in JOB_DIR/pair-I, removed after it
  // Each phase of each pair as "pair 3/20: timing baseline", beginning with "pair 3/20: worker
  // start" (before its launch) and "pair 3/20: LibTorch load" (once its process runs).
  std::function<void(const std::string& phase)> on_phase;
  std::function<void(int64_t blocks_done)> on_blocks;
  std::function<void(int pair, int pid)> on_pair_start;  // pair (1-based) and its process; may be empty
};

// Runs the pairs of `spec` (a calibrate JobSpec whose options ExperimentOptionsFor accepted).
// The Calibration holds the noise floor (measured_at: when the last pair ended; job_id left
// for the daemon) and one line per pair. Errors: the first failing pair's error, naming the
// pair ("pair 2/20: worker killed by signal 9 (SIGKILL)"; codes as RunComparisonInFreshWorker);
// no later pair is started, and the failed pair's process is gone when it returns.
absl::StatusOr<v1::Calibration> RunCalibration(const v1::JobSpec& spec, const CalibrationRun& run);

}  // namespace torchscan::worker
