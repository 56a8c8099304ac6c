// torchscan-worker's whole job (worker_protocol.h): read JOB_DIR's spec (worker/job_spec_file.h), run the
// measurement or comparison (experiment/experiment.h; threads are applied there before anything is
// built) or the calibration (worker/calibration_job.h: each pair in a fresh worker of its
// own, started from this one), write JOB_DIR/result.json atomically, report progress lines. The worker is fresh per
// job: LibTorch's thread settings can be set once per process. The result's timeline (report.timeline or
// comparison.timeline) counts from when the worker began the job, before it read its spec.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "passes/peak_rss.h"

// (Namespace torchscan::daemon kept from when the worker lived in daemon/.)
namespace torchscan::worker {

struct WorkerFlags {
  std::string job_dir;         // --job: holds spec.json, receives result.json (required)
  std::string rss_child_path;  // --rss-child: torchscan_rss_child, needed by rss jobs
  // This worker's own executable, run once per pair of a calibrate job (worker_main passes
  // /proc/self/exe); needed by calibrate jobs.
  std::string self_path;
  // RSS children a warm spare started while it waited (worker_main.cc): an rss job's trials
  // take them; for any other job they are killed before it starts. nullptr: none.
  std::vector<passes::RssTrial>* waiting_rss = nullptr;
};

// Returns the exit code (WorkerExitCode). Progress lines go to `progress` (flushed each);
// on failure one line "torchscan-worker: <why>" goes to `errors`. Never throws.
int RunWorkerJob(const WorkerFlags& flags, std::ostream& progress, std::ostream& errors);

}  // namespace torchscan::worker
