// Fault injection against one real torchscand (TestDaemon) driven by the real client: kill -9
// of the worker while it times, of the RSS child, of the daemon itself mid-job, and a full
// disk under the state folder. After each fault the job ends with a reason, the first job's
// stored result.json is byte-identical, and the daemon serves the next job.
//
// The disk: the test process enters its own mount namespace (unshare, as root) and mounts a
// 64 MiB tmpfs on the state folder before the daemon starts, so the daemon, its restarts and
// its workers all write there; filling it leaves too little room for a result. Where mounts
// are refused it injects the write failure instead: RLIMIT_FSIZE on the worker (prlimit),
// which makes the result write fail with SIGXFSZ/EFBIG. The output says which one ran.
// The namespace belongs to the main thread (unshare(CLONE_NEWNS) is per thread when threads
// exist): the daemon is started and the state folder read only from test bodies, which run
// there; clients in background threads only talk to the socket.
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <memory>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "proto/service.pb.h"
#include "report/json_io.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"
#include "tests/job_process_witness.h"
#include "tests/overlap_verdict.h"

namespace torchscan::e2e {
namespace {

// A job file (JobSpec JSON) in the test's temporary folder, outside the state folder.
std::string JobFile(const std::string& name, const std::string& options) {
  const std::string path = TempDir("jobs") + "/" + name + ".json";
  std::ofstream(path) << R"({"measure": {"workload": {"model": {"builtin": "linear"}}}, "options": )" << options
                      << "}";
  return path;
}

// The pid of a child of `parent` running `program` (its name as /proc/PID/stat has it,
// truncated to 15 characters); 0 if there is none.
pid_t ChildRunning(pid_t parent, const std::string& program) {
  const std::string comm = program.substr(0, 15);
  std::unique_ptr<DIR, int (*)(DIR*)> proc(::opendir("/proc"), ::closedir);
  while (dirent* entry = proc ? ::readdir(proc.get()) : nullptr) {
    const pid_t pid = std::atoi(entry->d_name);
    if (pid <= 0) continue;
    const std::string stat = Slurp("/proc/" + std::to_string(pid) + "/stat");  // "PID (COMM) S PPID ..."
    const size_t open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 4 >= stat.size()) continue;
    if (std::atoi(stat.c_str() + close + 4) == parent && stat.substr(open + 1, close - open - 1) == comm) return pid;
  }
  return 0;
}

// The RSS child of `worker` once it runs (waits at most 60 s); 0 if none appeared.
pid_t WaitForRssChild(pid_t worker) {
  pid_t child = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (child == 0 && std::chrono::steady_clock::now() < deadline) {
    child = ChildRunning(worker, "torchscan_rss_child");
    if (child == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return child;
}

// Alive and not a zombie.
bool Alive(pid_t pid) {
  const std::string stat = Slurp("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

class FaultInjection : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    state_dir_ = TempDir("state");
    tmpfs_ = MountTmpfs(state_dir_, &disk_note_);
    std::printf("fault injection: disk full by %s\n", disk_note_.c_str());
    daemon_ = new TestDaemon(state_dir_);
    const CommandResult first = daemon_->Client({"measure", "--job", JobFile("first", kQuick)});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    first_id_ = SubmittedId(first.err);
    first_result_ = Slurp(ResultPath(first_id_));
    ASSERT_GT(first_result_.size(), 0u) << ResultPath(first_id_);
  }
  static void TearDownTestSuite() {
    delete daemon_;
    daemon_ = nullptr;
    if (tmpfs_) ::umount2(state_dir_.c_str(), MNT_DETACH);
  }

  // A private mount namespace for this thread and a tmpfs on `dir`; false (and why in
  // `note`) when the kernel or the sandbox refuses.
  static bool MountTmpfs(const std::string& dir, std::string* note) {
    if (::unshare(CLONE_NEWNS) != 0) {
      *note = std::string("RLIMIT_FSIZE on the worker (unshare(CLONE_NEWNS): ") + std::strerror(errno) + ")";
      return false;
    }
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=64m,mode=0700") != 0) {
      *note = std::string("RLIMIT_FSIZE on the worker (mount tmpfs: ") + std::strerror(errno) + ")";
      return false;
    }
    *note = "a 64 MiB tmpfs on the state folder, filled with a ballast file";
    return true;
  }

  static std::string ResultPath(const std::string& id) { return state_dir_ + "/jobs/" + id + "/result.json"; }

  // The first job's stored result is untouched, byte for byte.
  static void ExpectEarlierResultIntact() {
    EXPECT_EQ(Slurp(ResultPath(first_id_)), first_result_) << "the stored result of " << first_id_ << " changed";
  }

  // The daemon answers Info and runs a quick job to success.
  static void ExpectDaemonServes() {
    EXPECT_TRUE(daemon_->Running());
    const CommandResult info = daemon_->Client({"info"});
    EXPECT_EQ(info.exit_code, 0) << info.err;
    const CommandResult next = daemon_->Client({"measure", "--job", JobFile("next", kQuick)});
    EXPECT_EQ(next.exit_code, 0) << next.err;
  }

  static constexpr const char* kQuick = R"({"min_run_time_s": 0.02, "skip_diagnostics": true})";
  static constexpr const char* kLong = R"({"min_run_time_s": 120, "skip_diagnostics": true})";

  static TestDaemon* daemon_;
  static std::string state_dir_;
  static bool tmpfs_;
  static std::string disk_note_;
  static std::string first_id_;
  static std::string first_result_;
};

TestDaemon* FaultInjection::daemon_ = nullptr;
std::string FaultInjection::state_dir_;
bool FaultInjection::tmpfs_ = false;
std::string FaultInjection::disk_note_;
std::string FaultInjection::first_id_;
std::string FaultInjection::first_result_;

TEST_F(FaultInjection, WorkerKilledWhileTimingFailsThatJobWithTheSignal) {
  std::future<CommandResult> client = InBackground(*daemon_, {"measure", "--job", JobFile("long", kLong)});
  const v1::Job running = WaitForRunningJob(*daemon_);
  const v1::Job timing = WaitForPhase(*daemon_, running.id(), "timing");
  ASSERT_GT(timing.worker_pid(), 0);
  ASSERT_EQ(::kill(timing.worker_pid(), SIGKILL), 0);

  const CommandResult waited = client.get();
  EXPECT_EQ(waited.exit_code, 3) << waited.err;
  const v1::Job failed = ShowJob(*daemon_, running.id());
  EXPECT_EQ(failed.state(), v1::Job::failed);
  EXPECT_NE(failed.error().find("worker killed by signal 9 (SIGKILL)"), std::string::npos) << failed.error();
  EXPECT_NE(waited.err.find("signal 9"), std::string::npos) << waited.err;  // the client shows the reason
  ExpectEarlierResultIntact();
  ExpectDaemonServes();
}

TEST_F(FaultInjection, RssChildKilledLeavesRssUnknownWithTheReason) {
  std::future<CommandResult> client = InBackground(
      *daemon_, {"measure", "--job", JobFile("rss", R"({"min_run_time_s": 0.02, "skip_diagnostics": true, "rss": true})"),
                 "--output", TempDir("rss_out")});
  const v1::Job running = WaitForRunningJob(*daemon_);
  const pid_t child = WaitForRssChild(running.worker_pid());
  ASSERT_GT(child, 0) << "no RSS child of worker " << running.worker_pid() << " appeared";
  ASSERT_EQ(::kill(child, SIGKILL), 0);

  // The job still succeeds: its timing stands, the RSS metric is unknown with the reason.
  const CommandResult waited = client.get();
  ASSERT_EQ(waited.exit_code, 0) << waited.err;
  absl::StatusOr<v1::BenchmarkReport> report = LoadReport(TempDir("rss_out") + "/report.json");
  ASSERT_TRUE(report.ok()) << report.status();
  const v1::MetricResult* rss = nullptr;
  for (const v1::MetricResult& m : report->totals())
    if (m.name() == "peak_rss_bytes") rss = &m;
  ASSERT_NE(rss, nullptr);
  EXPECT_FALSE(rss->has_value());
  EXPECT_FALSE(rss->complete());
  ASSERT_EQ(rss->diagnostics_size(), 1);
  EXPECT_NE(rss->diagnostics(0).find("RSS child was killed by signal 9"), std::string::npos)
      << rss->diagnostics(0);
  std::printf("RSS child killed: %s\n", rss->diagnostics(0).c_str());
  ExpectEarlierResultIntact();
  ExpectDaemonServes();
}

// The worker killed by something else (the OOM killer, say) while its RSS child runs: the
// child must not run on into the next job. Judged by the overlap witness the test owns
// (tests/job_process_witness.h): no process of the killed job alive after its record says
// finished, none alive alongside the next job's.
TEST_F(FaultInjection, WorkerKilledDuringRssLeavesNoChildBehind) {
  JobProcessWitness witness(daemon_->pid());
  std::future<CommandResult> client = InBackground(
      *daemon_, {"measure", "--job", JobFile("rss_orphan", R"({"min_run_time_s": 0.02, "skip_diagnostics": true, "rss": true})")});
  const v1::Job running = WaitForRunningJob(*daemon_);
  const pid_t child = WaitForRssChild(running.worker_pid());
  ASSERT_GT(child, 0) << "no RSS child of worker " << running.worker_pid() << " appeared";
  ASSERT_EQ(::kill(running.worker_pid(), SIGKILL), 0);

  const CommandResult waited = client.get();
  EXPECT_EQ(waited.exit_code, 3) << waited.err;
  const v1::Job failed = ShowJob(*daemon_, running.id());
  EXPECT_EQ(failed.state(), v1::Job::failed);
  EXPECT_NE(failed.error().find("worker killed by signal 9 (SIGKILL)"), std::string::npos) << failed.error();
  EXPECT_FALSE(Alive(child)) << "the RSS child " << child << " outlived its job";
  ExpectDaemonServes();
  const OverlapVerdict seen = JudgeOverlaps(witness.Stop(), ListJobs(*daemon_), kRecordGraceS);
  std::printf("witness: %s\n", seen.Summary().c_str());
  for (const std::string& problem : seen.problems()) ADD_FAILURE() << "witness: " << problem;
  EXPECT_EQ(seen.jobs, 2);  // this one and ExpectDaemonServes' next job
  EXPECT_EQ(seen.ran("torchscan_rss_child"), 1);
}

// Beyond daemon_end_to_end_test's Kill9OfTheDaemonLosesNothing: the kill lands while the job
// times, the orphaned worker dies with the daemon, two queued jobs run in submission order
// after the restart, numbering continues, and the result files are untouched.
TEST_F(FaultInjection, DaemonKilledWhileTimingInterruptsThatJobAndRunsTheQueue) {
  std::future<CommandResult> long_client = InBackground(*daemon_, {"measure", "--job", JobFile("long", kLong)});
  const v1::Job running = WaitForRunningJob(*daemon_);
  WaitForPhase(*daemon_, running.id(), "timing");
  std::vector<std::future<CommandResult>> queued_clients;
  for (int i = 0; i < 2; ++i) {
    queued_clients.push_back(InBackground(*daemon_, {"measure", "--job", JobFile("queued", kQuick)}));
    for (int tries = 0; tries < 100 && ListJobs(*daemon_, {"--state", "queued"}).size() < size_t(i + 1); ++tries)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::vector<v1::Job> queued = ListJobs(*daemon_, {"--state", "queued"});
  ASSERT_EQ(queued.size(), 2u);
  std::reverse(queued.begin(), queued.end());  // the list is newest first

  daemon_->Kill9();
  for (int i = 0; i < 100 && Alive(running.worker_pid()); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(Alive(running.worker_pid())) << "the worker outlived the daemon";
  long_client.get();  // the clients lose their daemon
  for (auto& c : queued_clients) c.get();
  daemon_->Start();

  const v1::Job interrupted = ShowJob(*daemon_, running.id());
  EXPECT_EQ(interrupted.state(), v1::Job::interrupted);
  EXPECT_NE(interrupted.error().find("daemon stopped while this job ran"), std::string::npos) << interrupted.error();
  EXPECT_EQ(interrupted.worker_pid(), 0);
  for (const v1::Job& job : queued) {
    const CommandResult watched = daemon_->Client({"jobs", "watch", job.id()});
    EXPECT_EQ(watched.exit_code, 0) << watched.err;
  }
  const v1::Job a = ShowJob(*daemon_, queued[0].id()), b = ShowJob(*daemon_, queued[1].id());
  EXPECT_EQ(a.state(), v1::Job::succeeded);
  EXPECT_EQ(b.state(), v1::Job::succeeded);
  EXPECT_LE(a.finished_at(), b.started_at()) << "queued jobs ran out of order or at once";
  ExpectEarlierResultIntact();

  const CommandResult next = daemon_->Client({"measure", "--job", JobFile("after_restart", kQuick)});
  ASSERT_EQ(next.exit_code, 0) << next.err;
  EXPECT_GT(SubmittedId(next.err), queued[1].id()) << "job numbering restarted";
}

TEST_F(FaultInjection, FullDiskFailsTheResultWriteAndDamagesNothing) {
  // Timing for 4 s makes hundreds of blocks: a result of tens of KiB, more than the room left.
  // The disk is filled once timing has started; 4 s leaves the loaded machine's client
  // polls (each a process start) time to see that phase before the result is written.
  std::future<CommandResult> client =
      InBackground(*daemon_, {"measure", "--job", JobFile("disk", R"({"min_run_time_s": 4, "skip_diagnostics": true})")});
  const v1::Job running = WaitForRunningJob(*daemon_);
  const v1::Job timing = WaitForPhase(*daemon_, running.id(), "timing");
  constexpr off_t kRoomLeft = 12 * 1024;  // the failed job's record and the worker's stderr line fit
  const std::string ballast = state_dir_ + "/ballast";
  if (tmpfs_) {
    struct statvfs fs;
    ASSERT_EQ(::statvfs(state_dir_.c_str(), &fs), 0);
    const off_t fill = static_cast<off_t>(fs.f_bavail) * fs.f_bsize - kRoomLeft;
    const int fd = ::open(ballast.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0) << std::strerror(errno);
    ASSERT_EQ(::posix_fallocate(fd, 0, fill), 0);
    ::close(fd);
  } else {
    const rlimit small = {static_cast<rlim_t>(kRoomLeft), RLIM_INFINITY};
    ASSERT_EQ(::prlimit(timing.worker_pid(), RLIMIT_FSIZE, &small, nullptr), 0) << std::strerror(errno);
  }

  const CommandResult waited = client.get();
  EXPECT_EQ(waited.exit_code, 3) << waited.err;
  const v1::Job failed = ShowJob(*daemon_, running.id());
  EXPECT_EQ(failed.state(), v1::Job::failed);
  if (tmpfs_) {
    EXPECT_NE(failed.error().find("result not written"), std::string::npos) << failed.error();
    EXPECT_NE(failed.error().find("result.json"), std::string::npos) << failed.error();
    EXPECT_NE(failed.error().find("No space left on device"), std::string::npos) << failed.error();
  } else {
    EXPECT_TRUE(failed.error().find("SIGXFSZ") != std::string::npos ||
                failed.error().find("File too large") != std::string::npos)
        << failed.error();
  }
  std::printf("full disk: %s\n", failed.error().c_str());
  // The failed record reached the disk too, and no partial result was left behind.
  v1::Job stored;
  EXPECT_TRUE(LoadJsonStrict(state_dir_ + "/jobs/" + running.id() + "/job.json", &stored).ok());
  EXPECT_EQ(stored.state(), v1::Job::failed);
  EXPECT_EQ(stored.error(), failed.error());
  EXPECT_EQ(::access(ResultPath(running.id()).c_str(), F_OK), -1);
  ExpectEarlierResultIntact();
  const CommandResult info = daemon_->Client({"info"});
  EXPECT_EQ(info.exit_code, 0) << info.err;

  ::unlink(ballast.c_str());
  ExpectDaemonServes();
}

}  // namespace
}  // namespace torchscan::e2e
