// Another daemon's running job, out of a job's reach through /proc (issue 41 item 2): workers
// ran as `nobody` in the machine's own PID namespace and stayed dumpable, so a job on one
// daemon read a job running on another through /proc/<its worker pid>/root/... (the victim's
// uploaded module). Now each job is process 1 of a PID namespace of its own with its own
// /proc, and workers are not dumpable. Real daemons, real workers as `nobody`, a hostile
// module saved from Python (tests/python/make_hostile_models.py).
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "tests/access_fixtures.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"
#include "worker/state_folder.h"

namespace torchscan::e2e {
namespace {

namespace fs = std::filesystem;

TEST(ProcessIsolation, ASecondDaemonsRunningJobIsOutOfReachThroughProc) {
  if (::geteuid() != 0) GTEST_SKIP() << "workers run as nobody only under a root torchscand";
  const std::string models = TempDir("isolation_models");
  ASSERT_EQ(e2e::Run(ProjectPython(), {Runfile("tests/python/make_models.py"), models}, 180).exit_code, 0);
  const Placement victim_place = OpenPlacement("isolation-victim");
  const Placement attacker_place = OpenPlacement("isolation-attacker");
  TestDaemon victim(victim_place.state_dir, With(victim_place.flags, {"--sandbox", "namespaces"}));
  TestDaemon attacker(attacker_place.state_dir, With(attacker_place.flags, {"--sandbox", "namespaces"}));

  // The victim's job measures for a minute; its worker's pid is for admins (root is one).
  std::future<CommandResult> running = InBackground(
      victim, {"measure", "--torchscript", models + "/mlp.pt", "--input", "64x256", "--min-run-time", "60"});
  const v1::Job job = WaitForRunningJob(victim);
  ASSERT_GT(job.worker_pid(), 0);
  const std::string spare_spec = victim.state_dir() + "/" + worker::kSpareJobFolder + "/spec.binpb";
  const std::string spec =
      fs::exists(spare_spec) ? spare_spec : victim.state_dir() + "/jobs/" + job.id() + "/spec.binpb";
  ASSERT_TRUE(fs::exists(spec)) << spec;
  const std::string through_proc = "/proc/" + std::to_string(job.worker_pid()) + "/root" + spec;

  // A job on the other daemon: that pid does not exist in its /proc.
  const std::string hostile = TempDir("isolation_hostile");
  ASSERT_EQ(
      e2e::Run(ProjectPython(), {Runfile("tests/python/make_hostile_models.py"), hostile, "spec=" + through_proc}, 180)
          .exit_code,
      0);
  const CommandResult read = attacker.Client(
      {"measure", "--torchscript", hostile + "/read_spec.pt", "--input", "4x8", "--min-run-time", "0.01"}, 180);
  EXPECT_NE(read.exit_code, 0);
  EXPECT_FALSE(absl::StrContains(read.err, "LEAKED")) << "read through " << through_proc << ": " << read.err;
  EXPECT_TRUE(absl::StrContains(read.err, "No such file or directory")) << read.err;

  // Any process of the workers' user outside a sandbox: the worker is not dumpable, so its
  // /proc/<pid>/root is closed to the same user.
  const CommandResult outside = e2e::Run("/usr/bin/setpriv", {"--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                                              "/usr/bin/head", "-c", "8", through_proc});
  EXPECT_NE(outside.exit_code, 0) << "nobody read " << through_proc;
  EXPECT_TRUE(absl::StrContains(outside.err, "Permission denied")) << outside.err;

  EXPECT_EQ(victim.Client({"jobs", "cancel", job.id()}).exit_code, 0);
  running.wait();
}

// A job's memory stops at worker_memory_bytes, its /tmp included (issue 41 item 5: a job
// under --worker-memory 4GiB held 7.8 GB of host memory in its /tmp, and the default had no
// limit at all): a module writing four 512 MiB files in /tmp under a 1 GiB limit ends at its
// /tmp's size (a quarter of the limit: the file's mapping faults, SIGBUS; before, RLIMIT_AS saw
// one file at a time and all four were held), one filling a 2 GiB tensor is ended
// by the kernel's OOM killer in the job's memory cgroup, with the limit named; the daemon
// serves on.
TEST(ProcessIsolation, AJobsMemoryStopsAtItsLimitWithItsTmp) {
  const Placement place = OpenPlacement("isolation-memory");
  TestDaemon d(place.state_dir, With(place.flags, {"--sandbox", "namespaces", "--worker-memory", "1073741824"}));
  const CommandResult info = d.Client({"info"});
  if (!absl::StrContains(info.out, "in a memory cgroup"))
    GTEST_SKIP() << "this daemon can make no memory cgroup: " << info.out;
  EXPECT_TRUE(absl::StrContains(info.out, "memory    1.0 GiB a job, in a memory cgroup (v")) << info.out;
  EXPECT_TRUE(absl::StrContains(info.out, "counts /tmp and /dev/shm (0.2 GiB each)")) << info.out;
  const std::string hostile = TempDir("isolation_memory_hostile");
  ASSERT_EQ(e2e::Run(ProjectPython(),
                     {Runfile("tests/python/make_hostile_models.py"), hostile, "fill:tmp=/tmp/fill:536870912:4"}, 180)
                .exit_code,
            0);
  const std::vector<std::string> measure = {"measure", "--input", "4x8", "--min-run-time", "0.01", "--torchscript"};
  const CommandResult fill = d.Client(With(measure, {hostile + "/fill_tmp.pt"}), 180);
  EXPECT_NE(fill.exit_code, 0) << "2 GiB written to /tmp under a 1 GiB limit: " << fill.out;
  EXPECT_TRUE(absl::StrContains(fill.err, "SIGBUS") || absl::StrContains(fill.err, "reached its memory limit"))
      << fill.err;
  const CommandResult grab = d.Client(With(measure, {hostile + "/grab.pt"}), 180);
  EXPECT_NE(grab.exit_code, 0) << "a 2 GiB tensor under a 1 GiB limit: " << grab.out;
  EXPECT_TRUE(absl::StrContains(grab.err, "the job reached its memory limit, worker_memory_bytes 1073741824"))
      << grab.err;
  EXPECT_TRUE(absl::StrContains(grab.err, "OOM killer")) << grab.err;
  // The daemon serves on, and a job within the limit runs.
  const std::string models = TempDir("isolation_memory_models");
  ASSERT_EQ(e2e::Run(ProjectPython(), {Runfile("tests/python/make_models.py"), models}, 180).exit_code, 0);
  const CommandResult plain =
      d.Client({"measure", "--torchscript", models + "/mlp.pt", "--input", "64x256", "--min-run-time", "0.01"}, 180);
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
}

}  // namespace
}  // namespace torchscan::e2e
