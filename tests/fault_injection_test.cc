// Fault injection against one real torchscand (TestDaemon) driven by the real client: kill -9
// of the worker while it times, of the RSS child, of the daemon itself mid-job (while timing,
// and during an RSS trial), and a full disk under the state folder. After each fault the job
// ends with a reason, the first job's stored result.json is byte-identical, and the daemon
// serves the next job. Processes orphaned by the daemon's death must end by themselves: the
// test adopts them (descendants.h) to see how, and never kills them.
//
// The disk: the test process enters its own mount namespace (unshare, as root) and mounts a
// 64 MiB tmpfs on the state folder before the daemon starts, so the daemon, its restarts and
// its workers all write there; a ballast file then takes every free block, so that the
// daemon's own writes (job records, refused submissions) and the worker's result find no room.
// Where the mount is refused, the full-disk tests report SKIPPED with the reason (no other
// fault stands in for a full disk); the other tests run on the ordinary disk.
// The namespace belongs to the main thread (unshare(CLONE_NEWNS) is per thread when threads
// exist): the daemon is started and the state folder read only from test bodies, which run
// there; clients in background threads only talk to the socket.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "io/proto_json.h"
#include "proto/service.pb.h"
#include "report/report_json.h"
#include "tests/descendants.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"
#include "tests/job_process_witness.h"
#include "tests/overlap_verdict.h"

namespace torchscan::e2e {
namespace {

// A job file (JobSpec JSON) in the test's temporary folder, outside the state folder: the
// built-in linear model, on `inputs` (JSON; default: the model's own) with `options`.
std::string JobFile(const std::string& name, const std::string& options, const std::string& inputs = "") {
  const std::string path = TempDir("jobs") + "/" + name + ".json";
  std::ofstream(path) << R"({"measure": {"workload": {"model": {"builtin": "linear"})"
                      << (inputs.empty() ? "" : R"(, "inputs": )" + inputs) << R"(}}, "options": )" << options << "}";
  return path;
}

// Inputs for the RSS tests: a job's RSS children start with the job, beside the worker's
// build (a spare worker starts them within milliseconds of running), so with the linear
// model's own 32 x 128 input a child could end before a test polling the job list saw it.
// 16384 x 128: the child's 100 calls take seconds after LibTorch has loaded.
constexpr char kSlowRssInputs[] = R"([{"generated": {"shape": [16384, 128]}}])";

// Every file under `dir` (relative path -> bytes) and every folder (-> "<folder>"), but
// the folders named in `except`.
std::map<std::string, std::string> Contents(const std::string& dir, const std::vector<std::string>& except = {}) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> contents;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = fs::relative(it->path(), dir).string();
    if (it->is_directory() && std::find(except.begin(), except.end(), it->path().filename().string()) != except.end()) {
      it.disable_recursion_pending();
      continue;
    }
    contents[name] = it->is_directory() ? "<folder>" : Slurp(it->path().string());
  }
  return contents;
}

// The names whose contents differ between two Contents(), each marked "changed: ",
// "added: " or "removed: "; empty when they are the same.
std::vector<std::string> Differences(const std::map<std::string, std::string>& before,
                                     const std::map<std::string, std::string>& after) {
  std::vector<std::string> differences;
  for (const auto& [name, bytes] : before) {
    auto it = after.find(name);
    if (it == after.end()) differences.push_back("removed: " + name);
    else if (it->second != bytes) differences.push_back("changed: " + name);
  }
  for (const auto& [name, bytes] : after)
    if (before.count(name) == 0) differences.push_back("added: " + name);
  return differences;
}

// Files named like WriteFileAtomic's temporaries (NAME.tmp.PID) under `dir`.
std::vector<std::string> Temporaries(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& [name, bytes] : Contents(dir))
    if (name.find(".tmp.") != std::string::npos) found.push_back(name);
  return found;
}

// Fills the filesystem of `dir` (a tmpfs) to the last block with one file in it, and
// removes that file again on Free() or destruction.
class Ballast {
 public:
  explicit Ballast(const std::string& dir) : path_(dir + "/ballast") {
    struct statvfs fs;
    if (::statvfs(dir.c_str(), &fs) != 0) {
      ADD_FAILURE() << "statvfs " << dir << ": " << std::strerror(errno);
      return;
    }
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int error = fd < 0 ? errno : ::posix_fallocate(fd, 0, static_cast<off_t>(fs.f_bavail) * fs.f_frsize);
    if (error != 0) ADD_FAILURE() << "cannot fill " << dir << ": " << std::strerror(error);
    if (fd >= 0) ::close(fd);
    // Full means full: not one more block for anyone.
    EXPECT_EQ(::statvfs(dir.c_str(), &fs), 0);
    EXPECT_EQ(fs.f_bavail, 0u) << dir << " still has free blocks";
    const std::string probe = dir + "/probe";
    std::ofstream(probe) << std::string(4096, 'p') << std::flush;
    EXPECT_EQ(std::filesystem::file_size(probe), 0u) << "a write still found room in " << dir;
    ::unlink(probe.c_str());
  }
  ~Ballast() { Free(); }
  void Free() { ::unlink(path_.c_str()); }

 private:
  std::string path_;
};

class FaultInjection : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    state_dir_ = TempDir("state");
    tmpfs_ = MountTmpfs(state_dir_, &disk_note_);
    std::printf("fault injection: %s\n", disk_note_.c_str());
    daemon_ = new TestDaemon(state_dir_, {"--sandbox", "off"});  // the witness reads every job (job_process_witness.h)
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
      *note = std::string("no tmpfs for a full disk: unshare(CLONE_NEWNS) was refused (") + std::strerror(errno) +
              "); run as root where mounts are allowed";
      return false;
    }
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=64m,mode=0700") != 0) {
      *note = std::string("no tmpfs for a full disk: mount was refused (") + std::strerror(errno) +
              "); run as root where mounts are allowed";
      return false;
    }
    *note = "a 64 MiB tmpfs on the state folder, filled with a ballast file";
    return true;
  }

  // Every stored file of the jobs but `running`'s (whose worker.stderr may still grow).
  static std::map<std::string, std::string> Stored(const std::string& running = "") {
    return Contents(state_dir_ + "/jobs", {running});
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
  // How long an orphan may take to end after the daemon's kill -9: milliseconds here (the
  // kernel signals it as the daemon dies); 10 s is room for two busy cores.
  static constexpr double kOrphanBound_s = 10;

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
      *daemon_, {"measure", "--job",
                 JobFile("rss", R"({"min_run_time_s": 0.02, "skip_diagnostics": true, "rss": true})", kSlowRssInputs),
                 "--output", TempDir("rss_out")});
  const v1::Job running = WaitForRunningJob(*daemon_);
  const pid_t child = WaitForChild(running.worker_pid(), "torchscan_rss_child");
  ASSERT_GT(child, 0) << "no RSS child of worker " << running.worker_pid() << " appeared";
  ASSERT_EQ(::kill(child, SIGKILL), 0);

  // The job still succeeds: its timing stands, the RSS metric is unknown with the reason.
  const CommandResult waited = client.get();
  ASSERT_EQ(waited.exit_code, 0) << waited.err;
  absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(TempDir("rss_out") + "/report.json");
  ASSERT_TRUE(report.ok()) << report.status();
  const v1::MetricResult* rss = nullptr;
  for (const v1::MetricResult& m : report->totals())
    if (m.name() == "peak_rss_bytes") rss = &m;
  ASSERT_NE(rss, nullptr);
  EXPECT_FALSE(rss->has_value());
  EXPECT_FALSE(rss->complete());
  ASSERT_EQ(rss->diagnostics_size(), 1);
  EXPECT_NE(rss->diagnostics(0).find("RSS child was killed by signal 9"), std::string::npos) << rss->diagnostics(0);
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
      *daemon_,
      {"measure", "--job",
       JobFile("rss_orphan", R"({"min_run_time_s": 0.02, "skip_diagnostics": true, "rss": true})", kSlowRssInputs)});
  const v1::Job running = WaitForRunningJob(*daemon_);
  const pid_t child = WaitForChild(running.worker_pid(), "torchscan_rss_child");
  ASSERT_GT(child, 0) << "no RSS child of worker " << running.worker_pid() << " appeared";
  ASSERT_EQ(::kill(running.worker_pid(), SIGKILL), 0);

  const CommandResult waited = client.get();
  EXPECT_EQ(waited.exit_code, 3) << waited.err;
  const v1::Job failed = ShowJob(*daemon_, running.id());
  EXPECT_EQ(failed.state(), v1::Job::failed);
  EXPECT_NE(failed.error().find("worker killed by signal 9 (SIGKILL)"), std::string::npos) << failed.error();
  EXPECT_FALSE(AliveNotZombie(child)) << "the RSS child " << child << " outlived its job";
  ExpectDaemonServes();
  const OverlapVerdict seen = JudgeOverlaps(witness.Stop(), ListJobs(*daemon_), kRecordGraceS);
  std::printf("witness: %s\n", seen.Summary().c_str());
  for (const std::string& problem : seen.problems()) ADD_FAILURE() << "witness: " << problem;
  EXPECT_EQ(seen.jobs, 2);  // this one and ExpectDaemonServes' next job
  // At least the job's trial; a warm spare's unused waiting RSS children may show too.
  EXPECT_GE(seen.ran("torchscan_rss_child"), 1);
}

// Beyond daemon_end_to_end_test's Kill9OfTheDaemonLosesNothing: the kill lands while the job
// times, the orphaned worker ends by itself (as there: its death signal, or SIGPIPE from its
// next progress line), two queued jobs run in submission order after the restart, numbering
// continues, and the result files are untouched.
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

  ASSERT_EQ(ParentOf(running.worker_pid()), daemon_->pid());
  OrphanAdopter adopter;
  daemon_->Kill9();
  const OrphanAdopter::End worker = OrphanAdopter::WaitForEnd(running.worker_pid(), kOrphanBound_s);
  EXPECT_TRUE(worker.how == "killed by signal 9 (SIGKILL)" || worker.how == "killed by signal 13 (SIGPIPE)")
      << "the worker outlived the daemon: " << worker.how;
  std::printf("daemon killed while timing: its worker was %s after %.0f ms\n", worker.how.c_str(),
              worker.seconds * 1e3);
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

// The kill lands while the worker waits, silent, for its RSS child: only the death signals
// can end the two. The worker must die of its own (PR_SET_PDEATHSIG from torchscand's
// launcher), then the RSS child of its (from the worker); both become the test's orphans.
TEST_F(FaultInjection, DaemonKilledDuringAnRssTrialLeavesNoWorkerOrChildRunning) {
  // kSlowRssInputs: the kill finds the child running.
  std::future<CommandResult> client = InBackground(
      *daemon_, {"measure", "--job",
                 JobFile("rss_daemon_killed", R"({"min_run_time_s": 0.02, "skip_diagnostics": true, "rss": true})",
                         kSlowRssInputs)});
  const v1::Job running = WaitForRunningJob(*daemon_);
  const pid_t child = WaitForChild(running.worker_pid(), "torchscan_rss_child");
  ASSERT_GT(child, 0) << "no RSS child of worker " << running.worker_pid() << " appeared";
  ASSERT_EQ(ParentOf(running.worker_pid()), daemon_->pid());

  OrphanAdopter adopter;
  daemon_->Kill9();
  const OrphanAdopter::End worker = OrphanAdopter::WaitForEnd(running.worker_pid(), kOrphanBound_s);
  const OrphanAdopter::End rss = OrphanAdopter::WaitForEnd(child, kOrphanBound_s);
  EXPECT_EQ(worker.how, "killed by signal 9 (SIGKILL)") << "worker " << running.worker_pid();
  EXPECT_EQ(rss.how, "killed by signal 9 (SIGKILL)") << "RSS child " << child;
  std::printf("daemon killed during an RSS trial: worker %s after %.0f ms, RSS child %s after %.0f ms more\n",
              worker.how.c_str(), worker.seconds * 1e3, rss.how.c_str(), rss.seconds * 1e3);
  client.get();
  daemon_->Start();

  const v1::Job interrupted = ShowJob(*daemon_, running.id());
  EXPECT_EQ(interrupted.state(), v1::Job::interrupted);
  ExpectEarlierResultIntact();
  ExpectDaemonServes();
}

// The disk fills while the job times: the worker's result and then the daemon's own record
// of the failure find no room. Nothing stored is damaged (every earlier job's files are
// byte-identical; the job's record keeps its previous whole version), the daemon keeps
// serving (the failure from memory), and once space is freed it runs jobs again and stores
// the record it could not.
TEST_F(FaultInjection, FullDiskUnderTheResultAndRecordWritesDamagesNothingAndRecovers) {
  if (!tmpfs_) GTEST_SKIP() << disk_note_;
  // Timing for 10 s leaves the loaded machine's client polls (each a process start) time to
  // see the timing phase and fill the disk before the result is written.
  std::future<CommandResult> client = InBackground(
      *daemon_, {"measure", "--job", JobFile("disk", R"({"min_run_time_s": 10, "skip_diagnostics": true})")});
  const v1::Job running = WaitForRunningJob(*daemon_);
  WaitForPhase(*daemon_, running.id(), "timing");
  const std::map<std::string, std::string> stored = Stored(running.id());
  ASSERT_GT(stored.size(), 3u);  // the first job's files at least
  const std::string record_path = state_dir_ + "/jobs/" + running.id() + "/job.json";
  const std::string running_record = Slurp(record_path);
  Ballast ballast(state_dir_);

  const CommandResult waited = client.get();
  EXPECT_EQ(waited.exit_code, 3) << waited.err;
  const v1::Job failed = ShowJob(*daemon_, running.id());  // the daemon serves it from memory
  EXPECT_EQ(failed.state(), v1::Job::failed);
  EXPECT_NE(failed.error().find("(result not written)"), std::string::npos) << failed.error();
  EXPECT_NE(failed.error().find("state_dir " + state_dir_ + " has 0 bytes free"), std::string::npos) << failed.error();
  std::printf("full disk: %s\n", failed.error().c_str());

  // Nothing stored changed; no partial result, no temporary file.
  EXPECT_EQ(Slurp(record_path), running_record) << "the failed record write damaged the stored one";
  v1::Job on_disk;
  EXPECT_TRUE(LoadJsonStrict(record_path, &on_disk).ok());
  EXPECT_EQ(on_disk.state(), v1::Job::running);  // the last whole version it could write
  EXPECT_EQ(::access(ResultPath(running.id()).c_str(), F_OK), -1);
  EXPECT_EQ(Differences(stored, Stored(running.id())), std::vector<std::string>{}) << "an earlier job's stored files";
  EXPECT_EQ(Temporaries(state_dir_ + "/jobs"), std::vector<std::string>{});
  ExpectEarlierResultIntact();
  const CommandResult info = daemon_->Client({"info"});
  EXPECT_EQ(info.exit_code, 0) << info.err;

  ballast.Free();
  ExpectDaemonServes();
  // The record that found no room reached the disk with the next job's.
  EXPECT_TRUE(LoadJsonStrict(record_path, &on_disk).ok());
  EXPECT_EQ(on_disk.state(), v1::Job::failed);
  EXPECT_EQ(on_disk.error(), failed.error());
  // Only the next job's files were added.
  const std::vector<std::string> added = Differences(stored, Stored(running.id()));
  EXPECT_FALSE(added.empty());
  for (const std::string& difference : added) EXPECT_EQ(difference.rfind("added: ", 0), 0u) << difference;
}

// With no room left in the state folder, a submission is refused at once (RESOURCE_EXHAUSTED,
// the client's refusal exit code 5) naming state_dir and what to do; nothing is queued or
// left behind, and the same submission runs once space is freed.
TEST_F(FaultInjection, SubmitOnAFullStateFolderIsRefusedNamingStateDir) {
  if (!tmpfs_) GTEST_SKIP() << disk_note_;
  const std::map<std::string, std::string> stored = Stored();
  const size_t jobs = ListJobs(*daemon_).size();
  Ballast ballast(state_dir_);

  const std::string job = JobFile("refused", kQuick);
  const CommandResult refused = daemon_->Client({"measure", "--job", job});
  EXPECT_EQ(refused.exit_code, 5) << refused.err;
  EXPECT_EQ(SubmittedId(refused.err), "") << refused.err;
  EXPECT_NE(refused.err.find("state_dir " + state_dir_ + ": the job could not be stored"), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("No space left on device"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("0 bytes free there"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("nothing was queued; free space in the daemon's state_dir"), std::string::npos)
      << refused.err;
  std::printf("full state folder at submit: %s", refused.err.c_str());
  EXPECT_EQ(ListJobs(*daemon_).size(), jobs);
  EXPECT_EQ(Differences(stored, Stored()), std::vector<std::string>{})
      << "the refused submission changed or left something in the state folder";

  ballast.Free();
  const CommandResult accepted = daemon_->Client({"measure", "--job", job});
  EXPECT_EQ(accepted.exit_code, 0) << accepted.err;
  ExpectEarlierResultIntact();
}

}  // namespace
}  // namespace torchscan::e2e
