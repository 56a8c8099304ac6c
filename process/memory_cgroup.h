// A memory cgroup for each worker: the kernel counts everything its processes hold (heap,
// mappings, and the pages of its private /tmp and /dev/shm, which RLIMIT_AS never sees) and,
// at the limit, its OOM killer ends a process of that cgroup only, never the daemon or another
// process of the machine (issue 41: a job held 7.8 GB of host memory in its /tmp).
//
// Where: below this process's own cgroup. With cgroup v2 (the unified hierarchy, its memory
// controller given to this cgroup: root, or a delegated subtree such as systemd's Delegate=yes)
// this process first moves itself into a leaf of its own, "<own>/torchscand", and turns the
// memory controller on for its cgroup's children (v2 lets only leaves hold processes); with
// cgroup v1, in the memory hierarchy. Each worker's cgroup is "<parent>/torchscand-<pid>-<n>":
// memory limit set (v2 also swap 0), entered by the child itself before its exec through a
// descriptor opened here (SetUp.cgroup_procs_fd), removed once its processes are gone; those a
// daemon killed with kill -9 left are removed by the next Open in the same place.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace torchscan::process {

class WorkerCgroup;

class MemoryCgroups {
 public:
  // Finds and prepares the place (above), trying a worker cgroup there once. The error says
  // why there is none ("no memory controller in cgroup v2 /x and no cgroup v1 memory
  // hierarchy", "cannot make /sys/fs/cgroup/memory/x/...: Permission denied").
  // `mount_table` and `own_cgroups`: this process's mountinfo and cgroup files (tests give others).
  static absl::StatusOr<std::shared_ptr<const MemoryCgroups>> Open(
      const std::string& mount_table = "/proc/self/mountinfo", const std::string& own_cgroups = "/proc/self/cgroup");

  // A new, empty cgroup holding at most `limit_bytes` (> 0).
  absl::StatusOr<std::unique_ptr<WorkerCgroup>> Make(int64_t limit_bytes) const;

  int version() const { return version_; }               // 1 or 2
  const std::string& parent() const { return parent_; }  // the folder worker cgroups are made in

 private:
  MemoryCgroups(int version, std::string parent) : version_(version), parent_(std::move(parent)) {}
  int version_;
  std::string parent_;
};

class WorkerCgroup {
 public:
  ~WorkerCgroup();  // closes the descriptor and removes the cgroup (waits up to 1 s for it to empty)
  WorkerCgroup(const WorkerCgroup&) = delete;
  WorkerCgroup& operator=(const WorkerCgroup&) = delete;

  const std::string& path() const { return path_; }
  // Its cgroup.procs, open for writing (close-on-exec): the child writes "0" to enter.
  int procs_fd() const { return procs_fd_; }
  // How often the kernel's OOM killer ended one of its processes (memory.events / oom_control).
  int64_t oom_kills() const;
  // The most memory it held at once (memory.peak / memory.max_usage_in_bytes); -1: unknown.
  int64_t peak_bytes() const;

 private:
  friend class MemoryCgroups;
  WorkerCgroup(int version, std::string path, int procs_fd)
      : version_(version), path_(std::move(path)), procs_fd_(procs_fd) {}
  int version_;
  std::string path_;
  int procs_fd_;
};

}  // namespace torchscan::process
