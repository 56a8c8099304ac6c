#include "process/memory_cgroup.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "process/sandbox.h"

namespace torchscan::process {
namespace {

namespace fs = std::filesystem;

std::string TempDir(const std::string& name) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The machine's memory cgroups, or why the test cannot use them.
std::shared_ptr<const MemoryCgroups> Machines(std::string* why) {
  absl::StatusOr<std::shared_ptr<const MemoryCgroups>> cgroups = MemoryCgroups::Open();
  if (!cgroups.ok()) *why = std::string(cgroups.status().message());
  return cgroups.ok() ? *cgroups : nullptr;
}

// Runs `work` in a child that entered `cgroup` (after `plan`'s sandbox, when given); its wait status.
template <typename Work>
int InCgroup(const WorkerCgroup& cgroup, const SandboxPlan* plan, Work work) {
  const pid_t pid = ForkInto(plan);
  if (pid == 0) {
    if (plan != nullptr && plan->Apply() != nullptr) ::_exit(100);
    if (::write(cgroup.procs_fd(), "0", 1) != 1) ::_exit(101);
    ::_exit(work());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

constexpr int64_t kLimit = 64 << 20;

TEST(MemoryCgroup, TheKernelEndsAWorkerAtItsLimitAndCountsIt) {
  std::string why;
  std::shared_ptr<const MemoryCgroups> cgroups = Machines(&why);
  if (!cgroups) GTEST_SKIP() << "no memory cgroup for this process: " << why;
  absl::StatusOr<std::unique_ptr<WorkerCgroup>> cgroup = cgroups->Make(kLimit);
  ASSERT_TRUE(cgroup.ok()) << cgroup.status();
  const std::string path = (*cgroup)->path();
  EXPECT_TRUE(fs::is_directory(path));
  const int status = InCgroup(**cgroup, nullptr, [] {
    const size_t bytes = 4 * kLimit;
    char* memory =
        static_cast<char*>(::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    std::memset(memory, 1, bytes);
    return 0;
  });
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  EXPECT_EQ((*cgroup)->oom_kills(), 1);
  EXPECT_LE((*cgroup)->peak_bytes(), kLimit);
  EXPECT_GT((*cgroup)->peak_bytes(), kLimit / 2);
  cgroup->reset();
  EXPECT_FALSE(fs::exists(path)) << "removed once empty";
}

// Pages of a sandbox's /tmp are the job's memory too (RLIMIT_AS never saw them: issue 41).
TEST(MemoryCgroup, ASandboxsTmpCountsInIt) {
  std::string why;
  std::shared_ptr<const MemoryCgroups> cgroups = Machines(&why);
  if (!cgroups) GTEST_SKIP() << "no memory cgroup for this process: " << why;
  const std::string dir = TempDir("cgroup_sandbox");
  fs::create_directories(dir + "/root");
  SandboxSpec spec;
  spec.root = dir + "/root";
  spec.read_only = {"/usr", "/lib", "/etc"};
  spec.tmpfs_bytes = 4 * kLimit;  // room enough: only the cgroup stops it
  absl::StatusOr<SandboxPlan> plan = SandboxPlan::Prepare(spec);
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<std::unique_ptr<WorkerCgroup>> cgroup = cgroups->Make(kLimit);
  ASSERT_TRUE(cgroup.ok()) << cgroup.status();
  const int status = InCgroup(**cgroup, &*plan, [] {
    std::ofstream fill("/tmp/fill", std::ios::binary);
    const std::string block(1 << 20, 'x');
    for (int i = 0; i < 4 * (kLimit >> 20) && fill; ++i) fill.write(block.data(), block.size());
    fill.flush();
    return fill ? 0 : 1;
  });
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  EXPECT_GE((*cgroup)->oom_kills(), 1);
}

// Where the cgroups are: v1's memory hierarchy, below the process's own cgroup there; none
// when neither hierarchy has it, with why.
TEST(MemoryCgroup, FindsItsPlaceFromTheMountTableAndItsOwnCgroup) {
  const std::string dir = TempDir("cgroup_tables");
  std::ofstream(dir + "/none_mounts") << "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n";
  std::ofstream(dir + "/none_cgroup") << "0::/\n";
  absl::StatusOr<std::shared_ptr<const MemoryCgroups>> none =
      MemoryCgroups::Open(dir + "/none_mounts", dir + "/none_cgroup");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(none.status().message(), "no cgroup v2 hierarchy, and no cgroup v1 memory hierarchy");

  fs::create_directories(dir + "/memory/lab/job");
  // A worker cgroup left by a daemon that is gone (no process 999999999), and one of this process.
  fs::create_directories(dir + "/memory/lab/job/torchscand-999999999-7");
  const std::string mine = dir + "/memory/lab/job/torchscand-" + std::to_string(::getpid()) + "-900";
  fs::create_directories(mine);
  std::ofstream(dir + "/v1_mounts") << "35 31 0:32 / " << dir << "/memory rw - cgroup cgroup rw,memory\n";
  std::ofstream(dir + "/v1_cgroup") << "4:memory:/lab/job\n1:cpu:/\n";
  absl::StatusOr<std::shared_ptr<const MemoryCgroups>> v1 = MemoryCgroups::Open(dir + "/v1_mounts", dir + "/v1_cgroup");
  // A plain folder is no cgroup: the probe makes its worker folder but finds no limit file.
  ASSERT_FALSE(v1.ok());
  EXPECT_TRUE(absl::StrContains(v1.status().message(), dir + "/memory/lab/job/torchscand-")) << v1.status();
  EXPECT_TRUE(absl::StrContains(v1.status().message(), "memory.limit_in_bytes")) << v1.status();
  EXPECT_FALSE(fs::exists(dir + "/memory/lab/job/torchscand-999999999-7")) << "a gone daemon's cgroup is removed";
  EXPECT_TRUE(fs::exists(mine)) << "a running daemon's stays";
}

}  // namespace
}  // namespace torchscan::process
