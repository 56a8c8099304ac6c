#include "daemon/worker_memory.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace torchscan::daemon {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

absl::StatusOr<std::shared_ptr<const process::MemoryCgroups>> NoCgroup() {
  return absl::NotFoundError("no cgroup v2 hierarchy, and no cgroup v1 memory hierarchy");
}

TEST(WorkerMemory, TheDefaultIsThreeQuartersOfRamLessTheDaemonsReserveWhereACgroupHoldsIt) {
  // A cgroup folder of this process's cannot be faked: without one the default is none.
  const WorkerMemory none = OpenWorkerMemory(0, 24 * kGiB, NoCgroup);
  EXPECT_EQ(none.limit_bytes, 0);
  EXPECT_EQ(none.address_space_bytes, 0);  // never an address-space limit by default (LibTorch, CUDA)
  EXPECT_EQ(none.tmpfs_bytes, 0);
  EXPECT_TRUE(absl::StartsWith(none.description, "none: no memory cgroup (no cgroup v2 hierarchy")) << none.description;
  EXPECT_TRUE(absl::StrContains(none.description, "--worker-memory")) << none.description;

  const absl::StatusOr<std::shared_ptr<const process::MemoryCgroups>> real = process::MemoryCgroups::Open();
  if (!real.ok()) GTEST_SKIP() << "no memory cgroup here: " << real.status();
  const WorkerMemory memory = OpenWorkerMemory(0, 24 * kGiB, [&] { return real; });
  EXPECT_EQ(memory.limit_bytes, 18 * kGiB - (int64_t{512} << 20));
  EXPECT_EQ(memory.tmpfs_bytes, memory.limit_bytes / 4);
  EXPECT_EQ(memory.address_space_bytes, 0);
  EXPECT_EQ(memory.cgroups, *real);
  EXPECT_TRUE(absl::StartsWith(memory.description,
                               "17.5 GiB a job (the default: 75 % of RAM less 512 MiB), in a "
                               "memory cgroup (v"))
      << memory.description;
}

// Without a cgroup an explicit limit is kept whole: half of it address space, a quarter each
// for /tmp and /dev/shm.
TEST(WorkerMemory, WithoutACgroupAGivenLimitSplitsBetweenAddressSpaceAndTheScratchFileSystems) {
  const WorkerMemory memory = OpenWorkerMemory(4 * kGiB, 24 * kGiB, NoCgroup);
  EXPECT_EQ(memory.limit_bytes, 4 * kGiB);
  EXPECT_EQ(memory.address_space_bytes, 2 * kGiB);
  EXPECT_EQ(memory.tmpfs_bytes, kGiB);
  EXPECT_FALSE(memory.cgroups);
  EXPECT_EQ(memory.description,
            "4.0 GiB a job: RLIMIT_AS 2.0 GiB, /tmp and /dev/shm 1.0 GiB each (no memory cgroup: no cgroup v2 "
            "hierarchy, and no cgroup v1 memory hierarchy)");
}

TEST(WorkerMemory, MinusOneIsNone) {
  const WorkerMemory memory = OpenWorkerMemory(-1, 24 * kGiB, NoCgroup);
  EXPECT_EQ(memory.limit_bytes, 0);
  EXPECT_EQ(memory.description, "none (worker_memory_bytes -1)");
}

}  // namespace
}  // namespace torchscan::daemon
