#include "daemon/worker_launcher.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "worker/worker_protocol.h"

namespace torchscan::daemon {
namespace {

using Kind = worker::WorkerOutcome::Kind;

WorkerLaunch Fake(const std::string& mode, const std::string& stderr_name = "stderr.txt") {
  WorkerLaunch launch;
  launch.path = std::string(std::getenv("TEST_SRCDIR")) + "/torchscan/daemon/fake_worker";
  launch.args = {"--mode", mode};
  launch.stderr_path = std::string(std::getenv("TEST_TMPDIR")) + "/" + stderr_name;
  return launch;
}

struct Launched {
  worker::WorkerOutcome outcome;
  std::vector<std::string> lines;
  int pid = 0;
};

Launched Launch(const WorkerLaunch& launch, WorkerControl* control = nullptr) {
  Launched run;
  run.outcome = RunWorker(
      launch, [&](const std::string& line) { run.lines.push_back(line); }, control, [&](int pid) { run.pid = pid; });
  return run;
}

bool Alive(int pid) { return ::kill(pid, 0) == 0; }

TEST(WorkerLauncher, SuccessReportsEveryStdoutLine) {
  Launched run = Launch(Fake("ok"));
  EXPECT_TRUE(run.outcome.ok()) << run.outcome.reason;
  EXPECT_EQ(run.outcome.kind, Kind::kExited);
  EXPECT_EQ(run.outcome.exit_code, 0);
  EXPECT_TRUE(run.outcome.reason.empty());
  EXPECT_GT(run.pid, 0);
  EXPECT_EQ(run.lines, (std::vector<std::string>{"phase fake ok", "not a protocol line", "blocks 3"}));
}

TEST(WorkerLauncher, ExitCodeComesWithTheLastStderrLine) {
  Launched run = Launch(Fake("exit exit=3"));
  EXPECT_EQ(run.outcome.kind, Kind::kExited);
  EXPECT_EQ(run.outcome.exit_code, 3);
  EXPECT_EQ(run.outcome.reason, "worker exited with status 3 (workload error): torchscan-worker: fake failure 3");
  EXPECT_TRUE(absl::StrContains(run.outcome.stderr_tail, "some noise"));
}

TEST(WorkerLauncher, CrashIsReportedWithItsSignal) {
  Launched run = Launch(Fake("crash"));
  EXPECT_EQ(run.outcome.kind, Kind::kSignaled);
  EXPECT_EQ(run.outcome.signal, SIGSEGV);
  EXPECT_TRUE(absl::StartsWith(run.outcome.reason, "worker killed by signal 11 (SIGSEGV)")) << run.outcome.reason;
  EXPECT_TRUE(absl::StrContains(run.outcome.reason, "about to crash")) << run.outcome.reason;
}

TEST(WorkerLauncher, OutsideSigkillIsReported) {
  WorkerLaunch launch = Fake("ok sleep=30");
  worker::WorkerOutcome outcome = RunWorker(launch, {}, nullptr, [](int pid) { ::kill(pid, SIGKILL); });
  EXPECT_EQ(outcome.kind, Kind::kSignaled);
  EXPECT_EQ(outcome.reason, "worker killed by signal 9 (SIGKILL)");
}

TEST(WorkerLauncher, WallTimeKillsTheWorker) {
  WorkerLaunch launch = Fake("ok sleep=30");
  launch.wall_time_s = 0.3;
  const auto start = std::chrono::steady_clock::now();
  Launched run = Launch(launch);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(run.outcome.kind, Kind::kTimedOut);
  EXPECT_EQ(run.outcome.reason, "worker exceeded job_wall_time_s 0.3 and was killed (SIGKILL)");
  EXPECT_LT(took, 5);
  EXPECT_FALSE(Alive(run.pid));
}

TEST(WorkerLauncher, CancelKillsTheWholeProcessGroup) {
  WorkerControl control;
  int grandchild = 0;
  worker::WorkerOutcome outcome = RunWorker(
      Fake("spawn"),
      [&](const std::string& line) {
        if (absl::StartsWith(line, "grandchild ") && absl::SimpleAtoi(line.substr(11), &grandchild))
          control.Kill("cancelled by test");
      },
      &control);
  EXPECT_EQ(outcome.kind, Kind::kKilled);
  EXPECT_EQ(outcome.signal, SIGKILL);
  EXPECT_EQ(outcome.reason, "cancelled by test");
  ASSERT_GT(grandchild, 0);
  for (int i = 0; i < 100 && Alive(grandchild); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(Alive(grandchild));  // reaped by init once killed
}

TEST(WorkerLauncher, CancelFromAnotherThread) {
  WorkerControl control;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    control.Kill("first");
    control.Kill("second");
  });
  Launched run = Launch(Fake("ok sleep=30"), &control);
  canceller.join();
  EXPECT_EQ(run.outcome.kind, Kind::kKilled);
  EXPECT_EQ(run.outcome.reason, "first");
  EXPECT_LT(run.outcome.wall_s, 5);
}

TEST(WorkerLauncher, KillBeforeLaunchNeverStartsIt) {
  WorkerControl control;
  control.Kill("cancelled early");
  Launched run = Launch(Fake("ok"), &control);
  EXPECT_EQ(run.outcome.kind, Kind::kKilled);
  EXPECT_EQ(run.pid, 0);
}

TEST(WorkerLauncher, MemoryLimitIsAppliedAndNamed) {
  WorkerLaunch launch = Fake("memory");
  launch.memory_bytes = int64_t{256} << 20;
  Launched run = Launch(launch);
  EXPECT_EQ(run.outcome.exit_code, worker::kWorkerOutOfMemory);
  EXPECT_TRUE(absl::StrContains(run.outcome.reason, "(out of memory)")) << run.outcome.reason;
  EXPECT_TRUE(absl::StrContains(run.outcome.reason, "worker_memory_bytes is 268435456")) << run.outcome.reason;
}

TEST(WorkerLauncher, AffinityLimitsAndProcessGroupAreSetBeforeExec) {
  WorkerLaunch launch = Fake("env");
  launch.cpus = {0};
  launch.memory_bytes = int64_t{1} << 30;
  Launched run = Launch(launch);
  ASSERT_TRUE(run.outcome.ok()) << run.outcome.reason;
  EXPECT_NE(std::find(run.lines.begin(), run.lines.end(), "affinity 0"), run.lines.end());
  EXPECT_NE(std::find(run.lines.begin(), run.lines.end(), "rlimit_as 1073741824"), run.lines.end());
  EXPECT_NE(std::find(run.lines.begin(), run.lines.end(), "rlimit_core 0"), run.lines.end());
  EXPECT_NE(std::find(run.lines.begin(), run.lines.end(), "pgid_is_pid 1"), run.lines.end());
}

// A worker's own fresh copy (own_process_group false) stays in the launcher's group, where a
// kill of that group reaches it; a cancel still kills it and it is reaped before RunWorker returns.
TEST(WorkerLauncher, ALaunchInTheLaunchersGroupStaysThereAndIsStillKilledOnCancel) {
  WorkerLaunch env = Fake("env");
  env.own_process_group = false;
  Launched run = Launch(env);
  ASSERT_TRUE(run.outcome.ok()) << run.outcome.reason;
  EXPECT_NE(std::find(run.lines.begin(), run.lines.end(), "pgid_is_pid 0"), run.lines.end());

  WorkerLaunch sleeper = Fake("ok sleep=30");
  sleeper.own_process_group = false;
  WorkerControl control;
  int pid = 0;
  std::thread cancel;  // from the worker's start: a kill before RunWorker would launch nothing
  const worker::WorkerOutcome outcome = RunWorker(sleeper, nullptr, &control, [&](int p) {
    pid = p;
    EXPECT_EQ(::getpgid(p), ::getpgrp()) << "not in the launcher's group";
    cancel = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      control.Kill("cancelled by test");
    });
  });
  if (cancel.joinable()) cancel.join();
  EXPECT_EQ(outcome.kind, Kind::kKilled) << outcome.reason;
  EXPECT_EQ(outcome.reason, "cancelled by test");
  ASSERT_GT(pid, 0);
  EXPECT_FALSE(Alive(pid)) << "the worker is reaped before RunWorker returns";
  EXPECT_LT(outcome.wall_s, 10);
}

TEST(WorkerLauncher, ManyLinesArriveInOrder) {
  Launched run = Launch(Fake("flood lines=20000"));
  ASSERT_TRUE(run.outcome.ok());
  ASSERT_EQ(run.lines.size(), 3u + 20000u);
  EXPECT_EQ(run.lines.back(), "blocks 20000");
}

TEST(WorkerLauncher, MissingExecutableIsALaunchFailure) {
  WorkerLaunch launch = Fake("ok");
  launch.path = "/nonexistent/torchscan-worker";
  Launched run = Launch(launch);
  EXPECT_EQ(run.outcome.kind, Kind::kLaunchFailed);
  EXPECT_TRUE(absl::StartsWith(run.outcome.reason, "cannot start worker /nonexistent/torchscan-worker"))
      << run.outcome.reason;
}

}  // namespace
}  // namespace torchscan::daemon

namespace torchscan::daemon {
namespace {

// A shell standing in for the worker, printing what it was given.
WorkerLaunch Shell(const std::string& script) {
  WorkerLaunch launch;
  launch.path = "/bin/sh";
  launch.args = {"-c", script};
  launch.stderr_path = std::string(std::getenv("TEST_TMPDIR")) + "/shell.stderr";
  return launch;
}

TEST(WorkerLauncher, LimitsReachTheWorker) {
  WorkerLaunch launch = Shell("ulimit -n; ulimit -t; ulimit -c; grep NoNewPrivs /proc/self/status");
  launch.open_files = 64;
  launch.cpu_time_s = 30;
  Launched run = Launch(launch);
  ASSERT_TRUE(run.outcome.ok()) << run.outcome.reason;
  ASSERT_EQ(run.lines.size(), 4u);
  EXPECT_EQ(run.lines[0], "64");
  EXPECT_EQ(run.lines[1], "30");
  EXPECT_EQ(run.lines[2], "0");
  EXPECT_TRUE(absl::StrContains(run.lines[3], "1")) << run.lines[3];
}

// A worker that ends by itself (here exit 3; a crash or an outside SIGKILL alike) leaves a
// child running in its group: it is killed and gone when RunWorker returns. The test process
// is a child subreaper, as torchscand is, so the orphan is reaped by RunWorker.
TEST(WorkerLauncher, WhatAWorkerLeavesBehindIsGoneWhenItReturns) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  Launched run = Launch(Shell("sleep 60 & echo grandchild $!; exit 3"));
  EXPECT_EQ(run.outcome.kind, Kind::kExited);
  EXPECT_EQ(run.outcome.exit_code, 3);
  EXPECT_LT(run.outcome.wall_s, 30);
  int grandchild = 0;
  ASSERT_EQ(run.lines.size(), 1u);
  ASSERT_TRUE(absl::SimpleAtoi(run.lines[0].substr(11), &grandchild)) << run.lines[0];
  EXPECT_FALSE(Alive(grandchild)) << "the worker's child " << grandchild << " outlived it";
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

TEST(WorkerLauncher, CpuTimeLimitKillsASpinningWorker) {
  WorkerLaunch launch = Shell("while :; do :; done");
  launch.cpu_time_s = 1;
  launch.wall_time_s = 30;
  Launched run = Launch(launch);
  EXPECT_EQ(run.outcome.kind, Kind::kSignaled);
  EXPECT_EQ(run.outcome.signal, SIGXCPU);
  EXPECT_TRUE(absl::StrContains(run.outcome.reason, "worker_cpu_time_s is 1")) << run.outcome.reason;
}

TEST(WorkerLauncher, RunsAsTheUnprivilegedUserWhenRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
  const std::string secret = std::string(std::getenv("TEST_TMPDIR")) + "/root-only";
  ASSERT_EQ(std::system(("echo secret > " + secret + " && chmod 0600 " + secret).c_str()), 0);
  WorkerLaunch launch = Shell("id -u; id -g; id -G; cat " + secret + " 2>/dev/null || echo denied");
  launch.uid = 65534;
  launch.gid = 65534;
  Launched run = Launch(launch);
  ASSERT_TRUE(run.outcome.ok()) << run.outcome.reason << run.outcome.stderr_tail;
  ASSERT_EQ(run.lines.size(), 4u);
  EXPECT_EQ(run.lines[0], "65534");
  EXPECT_EQ(run.lines[1], "65534");
  EXPECT_EQ(run.lines[2], "65534");   // supplementary groups dropped
  EXPECT_EQ(run.lines[3], "denied");  // root's files are out of reach
}

// ---------------------------------------------------------------- SpareWorker

std::unique_ptr<SpareWorker> StartSpare(const WorkerLaunch& launch) {
  std::string reason;
  std::unique_ptr<SpareWorker> spare = SpareWorker::Start(launch, &reason);
  EXPECT_NE(spare, nullptr) << reason;
  return spare;
}

int ReadPid(const std::string& path) {
  for (int i = 0; i < 500; ++i) {
    std::ifstream in(path);
    int pid = 0;
    if (in >> pid && pid > 0) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

// The spare's set-up is a job worker's (ChildSetup), and it gets its job on stdin.
TEST(WorkerLauncher, ASpareHasAJobWorkersSetUpAndReadsItsJobFromStdin) {
  WorkerLaunch launch = Shell(
      "echo ready; cat; ulimit -n; ulimit -t; grep -E '^(Cpus_allowed_list|NoNewPrivs)' /proc/self/status; "
      "[ $(ps -o pgid= $$) -eq $$ ] && echo own group");
  launch.cpus = {0};
  launch.open_files = 64;
  launch.cpu_time_s = 30;
  std::unique_ptr<SpareWorker> spare = StartSpare(launch);
  ASSERT_NE(spare, nullptr);
  ASSERT_EQ(spare->Wait(5000), SpareWorker::State::kReady);
  int started = 0;
  std::vector<std::string> lines;
  const worker::WorkerOutcome outcome = spare->Run(
      launch, "job /j\nstderr /e\n", [&](const std::string& line) { lines.push_back(line); }, nullptr,
      [&](int pid) { started = pid; });
  ASSERT_TRUE(outcome.ok()) << outcome.reason;
  EXPECT_EQ(started, spare->pid());
  EXPECT_EQ(lines, (std::vector<std::string>{"job /j", "stderr /e", "64", "30", "NoNewPrivs:\t1",
                                             "Cpus_allowed_list:\t0", "own group"}));
}

TEST(WorkerLauncher, ASparesWallTimeCountsFromItsHandoff) {
  WorkerLaunch launch = Shell("echo ready; cat; sleep 30");
  std::unique_ptr<SpareWorker> spare = StartSpare(launch);
  ASSERT_NE(spare, nullptr);
  ASSERT_EQ(spare->Wait(5000), SpareWorker::State::kReady);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // idle longer than the limit below
  launch.wall_time_s = 0.3;
  const worker::WorkerOutcome outcome = spare->Run(launch, "job /j\nstderr /e\n", {}, nullptr);
  EXPECT_EQ(outcome.kind, Kind::kTimedOut) << outcome.reason;
  EXPECT_GE(outcome.wall_s, 0.3);
  EXPECT_LT(outcome.wall_s, 5);
}

TEST(WorkerLauncher, ASpareThatDiesWhileIdleIsSeenWithHowItEnded) {
  std::unique_ptr<SpareWorker> spare = StartSpare(Shell("echo ready; cat"));
  ASSERT_NE(spare, nullptr);
  ASSERT_EQ(spare->Wait(5000), SpareWorker::State::kReady);
  ASSERT_EQ(::kill(spare->pid(), SIGKILL), 0);
  // Wait says kReady at once while the kill has not landed yet: looked at again until it has.
  for (int i = 0; i < 500 && spare->Wait(0) != SpareWorker::State::kEnded; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(spare->Wait(0), SpareWorker::State::kEnded);
  EXPECT_TRUE(spare->said_ready());
  EXPECT_EQ(spare->end_reason(), "worker killed by signal 9 (SIGKILL)");
  EXPECT_FALSE(Alive(spare->pid()));  // reaped
}

// The fds behind `lines` ("<prefix> FD TARGET", TARGET as readlink gives it) whose target
// contains `kind` ("socket:", "memfd:").
std::set<std::string> FdsOf(const std::vector<std::string>& lines, const std::string& prefix, const std::string& kind) {
  std::set<std::string> fds;
  for (const std::string& line : lines) {
    const std::vector<std::string> words = absl::StrSplit(line, ' ');
    if (words.size() >= 3 && words[0] == prefix && absl::StrContains(line, kind)) fds.insert(words[1]);
  }
  return fds;
}

// The worker's RSS children (WorkerLaunch.early_children) hold only their own socket (stdin,
// stdout) and stderr file, the worker only its end of each, as --rss-waiting names them: no
// descriptor leaks either way (the worker reading its child's output to end of file shows that
// no other copy of the child's end is open). The child lists its descriptors and exits.
TEST(WorkerLauncher, RssChildrenAndTheWorkerHoldOnlyTheirOwnDescriptors) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  WorkerLaunch launch;
  launch.path = "/bin/bash";
  launch.args = {"-c", R"sh(s=${1%%:*}; e=${1##*:}; echo "fds $s $e"
read -r pid <&"$s"; echo "pid $pid"
while read -r mode links user group size month day time fd arrow target; do
  [ "$arrow" = "->" ] && echo "child $fd $target"
done <&"$s"
for f in /proc/$$/fd/*; do echo "worker ${f##*/} $(readlink "$f")"; done)sh"};
  launch.stderr_path = dir + "/fds.stderr";
  launch.wall_time_s = 30;
  const std::string rss_child_path = dir + "/fd-listing-rss-child";
  std::ofstream(rss_child_path) << "#!/bin/sh\nexec ls -l /proc/self/fd\n";
  ASSERT_EQ(::chmod(rss_child_path.c_str(), 0755), 0);
  launch.early_children = worker::WaitingRssChildren(rss_child_path, 1);
  Launched run = Launch(launch);
  ASSERT_TRUE(run.outcome.ok()) << run.outcome.reason << run.outcome.stderr_tail;
  ASSERT_GE(run.lines.size(), 2u);
  const std::vector<std::string> named = absl::StrSplit(run.lines[0], ' ');  // "fds S E"
  ASSERT_EQ(named.size(), 3u) << run.lines[0];
  int pid = 0;
  EXPECT_TRUE(absl::SimpleAtoi(run.lines[1].substr(4), &pid) && pid > 0) << run.lines[1];
  EXPECT_EQ(FdsOf(run.lines, "child", "socket:"), (std::set<std::string>{"0", "1"}));
  EXPECT_EQ(FdsOf(run.lines, "child", "memfd:"), std::set<std::string>{"2"});
  EXPECT_EQ(FdsOf(run.lines, "worker", "socket:"), std::set<std::string>{named[1]});
  EXPECT_EQ(FdsOf(run.lines, "worker", "memfd:"), std::set<std::string>{named[2]});
}

// A worker whose exec fails after the launcher started its RSS children (WorkerLaunch.
// early_children): the start fails with the reason, and nothing is left, not even a zombie: the
// worker reaps its children before it exits and is reaped here. The test process is a child
// subreaper, as torchscand is, so a child left to die with the worker would be its zombie.
TEST(WorkerLauncher, AWorkerThatCannotExecLeavesNoRssChildBehind) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const std::string dir = std::getenv("TEST_TMPDIR");
  WorkerLaunch launch = Shell("");
  launch.path = dir + "/not-executable-worker";
  std::ofstream(launch.path) << "not a program\n";
  const std::string rss_child_path = dir + "/waiting-rss-child";
  std::ofstream(rss_child_path) << "#!/bin/sh\nexec sleep 60\n";
  ASSERT_EQ(::chmod(rss_child_path.c_str(), 0755), 0);
  launch.early_children = worker::WaitingRssChildren(rss_child_path, 2);
  Launched run = Launch(launch);
  EXPECT_FALSE(run.outcome.ok());
  EXPECT_TRUE(absl::StrContains(run.outcome.reason, "cannot start worker " + launch.path)) << run.outcome.reason;
  EXPECT_EQ(run.pid, 0);
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1) << "a child of this process is left";
  EXPECT_EQ(errno, ECHILD);
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

// Only the RSS children actually forked are reported (on_early_children), not those asked for: a
// fork that fails is pid 0 to the worker. The worker's user (a uid nobody else runs as) may
// have 2 processes (RLIMIT_NPROC, inherited): the worker and its first child; the second
// fork fails.
TEST(WorkerLauncher, ReportsOnlyTheRssChildrenThatWereForked) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to switch users (root ignores RLIMIT_NPROC)";
  const std::string dir = std::getenv("TEST_TMPDIR");
  WorkerLaunch launch = Shell(R"sh(for w in "$@"; do
  [ "$w" = --rss-waiting ] || { read -r pid <&"${w%%:*}"; echo "pid $pid"; }
done)sh");
  launch.path = "/bin/bash";
  launch.args.push_back("worker");  // $0; "--rss-waiting S:E" per child follow
  launch.uid = 54321;
  launch.gid = 54321;
  const std::string rss_child_path = dir + "/waiting-rss-child";
  std::ofstream(rss_child_path) << "#!/bin/sh\nexec sleep 60\n";
  ASSERT_EQ(::chmod(rss_child_path.c_str(), 0755), 0);
  launch.early_children = worker::WaitingRssChildren(rss_child_path, 2);
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NPROC, &saved), 0);
  const rlimit two{2, saved.rlim_max};
  ASSERT_EQ(::setrlimit(RLIMIT_NPROC, &two), 0);
  int started = -1;
  std::vector<std::string> lines;
  const worker::WorkerOutcome outcome = RunWorker(
      launch, [&](const std::string& line) { lines.push_back(line); }, nullptr, {}, [&](int n) { started = n; });
  ASSERT_EQ(::setrlimit(RLIMIT_NPROC, &saved), 0);
  ASSERT_TRUE(outcome.ok()) << outcome.reason << outcome.stderr_tail;
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0], "pid 0");
  EXPECT_EQ(lines[1], "pid 0");  // its fork failed
  EXPECT_EQ(started, 1);
}

TEST(WorkerLauncher, ASpareThatFailsToLoadSaysWhy) {
  std::unique_ptr<SpareWorker> spare = StartSpare(Shell("echo cannot load >&2; exit 3"));
  ASSERT_NE(spare, nullptr);
  EXPECT_EQ(spare->Wait(5000), SpareWorker::State::kEnded);
  EXPECT_FALSE(spare->said_ready());
  EXPECT_EQ(spare->end_reason(), "worker exited with status 3 (workload error): cannot load");
  std::string reason;
  WorkerLaunch missing = Shell("");
  missing.path = "/nonexistent/torchscan-worker";
  EXPECT_EQ(SpareWorker::Start(missing, &reason), nullptr);
  EXPECT_TRUE(absl::StrContains(reason, "cannot start worker /nonexistent/torchscan-worker")) << reason;
}

// An unused spare, dropped (the daemon stops): it and what it started are gone.
TEST(WorkerLauncher, ADroppedSpareLeavesNothingBehind) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const std::string pid_file = std::string(std::getenv("TEST_TMPDIR")) + "/spare-child.pid";
  std::unique_ptr<SpareWorker> spare = StartSpare(Shell("sleep 60 & echo $! > " + pid_file + "; echo ready; cat"));
  ASSERT_NE(spare, nullptr);
  ASSERT_EQ(spare->Wait(5000), SpareWorker::State::kReady);
  const int pid = spare->pid();
  const int child = ReadPid(pid_file);
  ASSERT_GT(child, 0);
  spare.reset();
  EXPECT_FALSE(Alive(pid));
  EXPECT_FALSE(Alive(child)) << "the spare's child " << child << " outlived it";
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

}  // namespace
}  // namespace torchscan::daemon
