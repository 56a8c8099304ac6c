// One comparison in a fresh torchscan-worker process, started and supervised by the worker
// itself (a calibration's A/A pairs, worker/calibration_job.h): the same process a compare
// job gets from torchscand, LibTorch loaded fresh and the modules built fresh. No LibTorch.
//
// The child is launched with process/run.h (a worker's set-up: worker/worker_outcome.h), left
// in the calling worker's process group (own_process_group false): a cancel or wall-time kill
// of that group by torchscand reaches it directly, and it dies with the calling thread
// (PR_SET_PDEATHSIG). It inherits the worker's CPU affinity, rlimits and user, so torchscand's
// limits apply to it as they do to the worker. process::Run returns only once it is reaped.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "proto/service.pb.h"

// (Namespace torchscan::daemon kept from when the worker lived in daemon/.)
namespace torchscan::worker {

struct FreshWorkerRun {
  std::string worker_path;  // the torchscan-worker to run (the worker passes /proc/self/exe); required
  // A folder to create for the child's job: spec.binpb, result.json and the child's stderr.txt.
  // Whatever is there is removed first; the folder is removed again when the call returns.
  std::string dir;
  std::function<void(int pid)> on_start;                   // once the child runs; may be empty
  std::function<void(const std::string& phase)> on_phase;  // each of its phase lines; may be empty
  std::function<void(int64_t blocks_done)> on_blocks;      // each of its blocks lines; may be empty
};

// Runs `spec` (a compare JobSpec) in a fresh worker with `run` and returns the comparison it
// wrote. Errors (never throws):
//   InvalidArgument: spec is not a compare job, or worker_path or dir is empty
//   Internal: the folder or its spec.json could not be written; the child exited 0 without a
//     readable result.json holding a comparison
//   ResourceExhausted: the child exited with kWorkerOutOfMemory
//   Aborted: the child could not be started, exited non-zero or was killed by a signal, with
//     worker_outcome.h's one-line reason ("worker exited with status 3 (workload error):
//     torchscan-worker: ...", "worker killed by signal 9 (SIGKILL)", "cannot start worker ...")
absl::StatusOr<v1::Comparison> RunComparisonInFreshWorker(const v1::JobSpec& spec, const FreshWorkerRun& run);

}  // namespace torchscan::worker
