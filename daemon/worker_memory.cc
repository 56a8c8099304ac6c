#include "daemon/worker_memory.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace torchscan::daemon {
namespace {

std::string GiB(int64_t bytes) { return absl::StrFormat("%.1f GiB", static_cast<double>(bytes) / (1 << 30)); }

}  // namespace

WorkerMemory OpenWorkerMemory(
    int64_t configured_bytes, int64_t machine_bytes,
    const std::function<absl::StatusOr<std::shared_ptr<const process::MemoryCgroups>>()>& open) {
  WorkerMemory memory;
  const bool by_default = configured_bytes == 0;
  if (by_default && machine_bytes > 0)
    memory.limit_bytes =
        std::max<int64_t>(0, machine_bytes * kDefaultWorkerMemoryPercent / 100 - kDaemonMemoryReserveBytes);
  if (configured_bytes > 0) memory.limit_bytes = configured_bytes;
  if (memory.limit_bytes == 0) {
    memory.description =
        by_default ? "none: the machine's RAM is unknown (/proc/meminfo)" : "none (worker_memory_bytes -1)";
    return memory;
  }
  const std::string whose = by_default ? absl::StrCat(" (the default: ", kDefaultWorkerMemoryPercent, " % of RAM less ",
                                                      kDaemonMemoryReserveBytes >> 20, " MiB)")
                                       : "";
  absl::StatusOr<std::shared_ptr<const process::MemoryCgroups>> cgroups = open();
  memory.tmpfs_bytes = memory.limit_bytes / 4;
  if (cgroups.ok()) {
    memory.cgroups = *cgroups;
    memory.description =
        absl::StrCat(GiB(memory.limit_bytes), " a job", whose, ", in a memory cgroup (v", (*cgroups)->version(),
                     ") that counts /tmp and /dev/shm (", GiB(memory.tmpfs_bytes), " each)");
    return memory;
  }
  const std::string why = std::string(cgroups.status().message());
  if (by_default) {
    memory.limit_bytes = 0;
    memory.tmpfs_bytes = 0;
    memory.description = absl::StrCat("none: no memory cgroup (", why,
                                      "); run torchscand as root or in a delegated cgroup (systemd Delegate=yes), or "
                                      "give --worker-memory for an address-space limit");
    return memory;
  }
  memory.address_space_bytes = memory.limit_bytes - 2 * memory.tmpfs_bytes;
  memory.description =
      absl::StrCat(GiB(memory.limit_bytes), " a job: RLIMIT_AS ", GiB(memory.address_space_bytes),
                   ", /tmp and /dev/shm ", GiB(memory.tmpfs_bytes), " each (no memory cgroup: ", why, ")");
  return memory;
}

}  // namespace torchscan::daemon
