#include "daemon/restart_rules.h"

namespace torchscan::daemon {

bool IsFinished(v1::Job::State state) {
  return state != v1::Job::queued && state != v1::Job::running && state != v1::Job::state_unspecified;
}

bool InterruptIfRunning(v1::Job& job, const std::string& now, bool slurm_front) {
  if (job.state() != v1::Job::running) return false;
  if (slurm_front && !job.slurm_job_id().empty()) return false;
  job.set_state(v1::Job::interrupted);
  job.set_error("the daemon stopped while this job ran (found running at start-up)");
  job.set_finished_at(now);
  job.set_worker_pid(0);
  return true;
}

void ClearStaleQueuePosition(v1::Job& job) {
  if (job.state() != v1::Job::queued) job.set_queue_position(0);
}

bool NeedsSummary(const v1::Job& job) {
  return job.state() == v1::Job::succeeded && !job.has_summary() && !job.spec().has_calibrate();
}

}  // namespace torchscan::daemon
