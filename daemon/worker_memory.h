// How much memory each job's worker may hold, and how that is enforced (issue 41): a job's
// heap, mappings and the pages of its private /tmp and /dev/shm together, in a memory cgroup of
// its own (process/memory_cgroup.h), where the kernel's OOM killer ends the job, never the
// daemon, at the limit. /tmp and /dev/shm hold at most a quarter of the limit each.
//
// The limit (DaemonLimits.worker_memory_bytes): 0 = the default, 75 % of the machine's RAM less
// 512 MiB for the daemon (proto/spec_limits.h kDefaultWorkerMemoryPercent,
// kDaemonMemoryReserveBytes); -1 = none;
// else bytes. Without a memory cgroup (not root, no delegated cgroup v2 subtree) a limit given
// explicitly becomes RLIMIT_AS of half of it (so that the address space and the two file systems
// together stay inside it), and the default none: an address-space limit misjudges LibTorch
// (virtual reservations of its allocators and threads) and breaks CUDA.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "process/memory_cgroup.h"
#include "proto/spec_limits.h"

namespace torchscan::daemon {

struct WorkerMemory {
  int64_t limit_bytes = 0;                                // the job's whole memory; 0: none
  std::shared_ptr<const process::MemoryCgroups> cgroups;  // set: the limit is a cgroup's
  int64_t address_space_bytes = 0;                        // RLIMIT_AS, without a cgroup; 0: none
  int64_t tmpfs_bytes = 0;                                // /tmp and /dev/shm each; 0: the kernel's default
  std::string description;                                // one line for info and the log
};

// `machine_bytes`: the machine's RAM (0: unknown, then the default is none). `open` finds the
// cgroups (tests give another).
WorkerMemory OpenWorkerMemory(
    int64_t configured_bytes, int64_t machine_bytes,
    const std::function<absl::StatusOr<std::shared_ptr<const process::MemoryCgroups>>()>& open = [] {
      return process::MemoryCgroups::Open();
    });

}  // namespace torchscan::daemon
