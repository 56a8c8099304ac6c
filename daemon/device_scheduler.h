// Which queued job starts next, and on which of the daemon's devices: the devices it offers
// (the CPU and its GPUs, DaemonConfig.devices) are the resources jobs claim.
//
// A job claims the devices it runs on (JobClaims): a GPU job its GPUs; a job that uses the
// CPU claims every device, so that CPU jobs keep the whole machine (nothing runs beside their
// timing) as they did when the daemon ran one job at a time. Jobs are taken in the queue's
// fair order (job_queue.h) with backfill: a job starts when none of its devices is busy and no
// job ahead of it claims one of them. So a job never overtakes one it shares a device with,
// jobs on distinct GPUs run at once, and the job at the head of the order starts as soon as
// its devices are free (no job waits forever).
//
// Each device has a lane (the executor's thread for it); a job runs on the lane of its home
// device, its first claim ("cpu" for a CPU job, else its lowest GPU). Plain data structure,
// not thread-safe: the executor guards it with the records' mutex.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "daemon/job_queue.h"
#include "proto/service.pb.h"

namespace torchscan::daemon {

// The devices of `offered` (normalised names, "cpu" and "cuda:N") job `spec` claims, its home
// first: every offered device, "cpu" first, when a workload runs on the CPU (or names a
// device that does not parse or is not offered: the worker refuses it, the daemon never
// strands it); else its GPUs by index.
std::vector<std::string> JobClaims(const v1::JobSpec& spec, const std::vector<std::string>& offered);

class DeviceScheduler {
 public:
  // `devices`: the offered devices (normalised, not empty); the limits are JobQueue's, over
  // all devices together.
  DeviceScheduler(std::vector<std::string> devices, int max_length, int max_per_user);

  // Queues job `id` of `user` claiming `claims` (JobClaims: not empty, offered devices).
  // JobQueue::Push's errors.
  absl::Status Push(const std::string& id, const std::string& user, std::vector<std::string> claims);
  // Queues a job restored at start-up (no limits).
  void Restore(const std::string& id, const std::string& user, std::vector<std::string> claims);
  // Takes a queued job out (cancel); false when it is not queued.
  bool Remove(const std::string& id);

  // The job `lane`'s device runs now, if one may start there (see above); nullopt when none.
  std::optional<std::string> Next(const std::string& lane) const;
  // Next(lane), taken out of the queue, its devices marked busy until Finish.
  std::optional<std::string> Start(const std::string& lane);
  // Job `id` (started) has ended: its devices are free.
  void Finish(const std::string& id);

  // 1 + the queued jobs ahead of `id` (fair order) that claim one of its devices; 0 when
  // `id` is not queued.
  int Position(const std::string& id) const;
  // The devices `id` claims (queued or running); empty when unknown.
  std::vector<std::string> ClaimsOf(const std::string& id) const;
  const std::vector<std::string>& devices() const { return devices_; }
  size_t size() const { return queue_.size(); }
  bool empty() const { return queue_.empty(); }
  // Queued jobs that claim `device`.
  int QueuedOn(const std::string& device) const;
  // The running job that claims `device`; "" when it is free.
  std::string RunningOn(const std::string& device) const;
  // The running jobs, by id.
  std::vector<std::string> Running() const;

 private:
  const std::vector<std::string> devices_;
  JobQueue queue_;
  std::map<std::string, std::vector<std::string>> claims_;  // queued and running jobs' claims
  std::map<std::string, std::string> busy_;                 // device -> the job running on it
};

}  // namespace torchscan::daemon
