#include "process/run.h"

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "process/exit_status.h"

namespace torchscan::process {
namespace {

RunOptions Shell(const std::string& script) {
  RunOptions options;
  options.spawn.path = "/bin/sh";
  options.spawn.args = {"-c", script};
  options.stderr_path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/stderr.txt");
  return options;
}

struct Ran {
  RunResult result;
  std::vector<std::string> lines;
  int pid = 0;
};

Ran RunIt(const RunOptions& options) {
  Ran ran;
  ran.result = process::Run(
      options, [&](const std::string& line) { ran.lines.push_back(line); },
      [&](const Spawned& spawned) { ran.pid = spawned.pid; });
  return ran;
}

bool Alive(int pid) { return ::kill(pid, 0) == 0; }

TEST(Run, TheEnvironmentAskedForIsSetOverTheLaunchers) {
  ::setenv("TORCHSCAN_RUN_TEST_KEPT", "kept", 1);
  ::setenv("TORCHSCAN_RUN_TEST_SET", "launcher's", 1);
  RunOptions options = Shell("echo \"$TORCHSCAN_RUN_TEST_KEPT $TORCHSCAN_RUN_TEST_SET $TORCHSCAN_RUN_TEST_NEW\"");
  options.spawn.environment = {"TORCHSCAN_RUN_TEST_SET=child's", "TORCHSCAN_RUN_TEST_NEW=new"};
  EXPECT_EQ(RunIt(options).lines, (std::vector<std::string>{"kept child's new"}));
  options.spawn.environment.clear();
  EXPECT_EQ(RunIt(options).lines, (std::vector<std::string>{"kept launcher's "}));
  EXPECT_STREQ(std::getenv("TORCHSCAN_RUN_TEST_SET"), "launcher's");  // the launcher's own is untouched
}

TEST(Run, LinesAndExitCodeComeBack) {
  const Ran ran = RunIt(Shell("echo one; echo two; printf last; exit 3"));
  ASSERT_TRUE(ran.result.started);
  EXPECT_EQ(ran.result.end, End::kExited);
  ASSERT_TRUE(ran.result.status.has_value());
  const ExitStatus status = DecodeWaitStatus(*ran.result.status);
  EXPECT_EQ(status.kind, ExitStatus::Kind::kExited);
  EXPECT_EQ(status.code, 3);
  EXPECT_EQ(ran.lines, (std::vector<std::string>{"one", "two", "last"}));
  EXPECT_GT(ran.pid, 0);
  EXPECT_FALSE(Alive(ran.pid));
}

TEST(Run, TheSetUpReachesTheProgram) {
  RunOptions options = Shell("ulimit -n; ulimit -c; grep NoNewPrivs /proc/self/status; echo $(ps -o pgid= $$) $$");
  options.spawn.setup.open_files = 64;
  options.spawn.setup.no_core_dumps = true;
  options.spawn.setup.no_new_privs = true;
  options.spawn.setup.own_process_group = true;
  const Ran ran = RunIt(options);
  ASSERT_EQ(ran.lines.size(), 4u);
  EXPECT_EQ(ran.lines[0], "64");
  EXPECT_EQ(ran.lines[1], "0");
  EXPECT_EQ(ran.lines[2], "NoNewPrivs:\t1");
  const std::string pid = std::to_string(ran.pid);
  EXPECT_EQ(ran.lines[3], pid + " " + pid);  // its own group
}

TEST(Run, WithoutOwnGroupItStaysInTheParentsGroup) {
  const Ran ran = RunIt(Shell("ps -o pgid= $$"));
  ASSERT_EQ(ran.lines.size(), 1u);
  int pgid = 0;
  ASSERT_TRUE(absl::SimpleAtoi(ran.lines[0], &pgid)) << ran.lines[0];
  EXPECT_EQ(pgid, ::getpgrp());
}

TEST(Run, PastItsWallTimeItIsKilled) {
  RunOptions options = Shell("echo started; exec sleep 60");
  options.wall_time_s = 0.2;
  const Ran ran = RunIt(options);
  EXPECT_EQ(ran.result.end, End::kTimedOut);
  EXPECT_EQ(DecodeWaitStatus(ran.result.status.value_or(0)).signal, SIGKILL);
  EXPECT_FALSE(Alive(ran.pid));
}

TEST(Run, AControlKillFromAnotherThreadEndsIt) {
  Control control;
  RunOptions options = Shell("echo started; exec sleep 60");
  options.control = &control;
  std::thread killer;
  const RunResult result =
      process::Run(options, [&](const std::string&) { killer = std::thread([&] { control.Kill("stop now"); }); });
  killer.join();
  EXPECT_EQ(result.end, End::kKilled);
  EXPECT_EQ(DecodeWaitStatus(result.status.value_or(0)).signal, SIGKILL);
  EXPECT_EQ(control.reason(), "stop now");
}

TEST(Run, KilledBeforeTheStartNothingRuns) {
  Control control;
  control.Kill("early");
  control.Kill("later");  // the first reason wins
  RunOptions options = Shell("echo ran");
  options.control = &control;
  const Ran ran = RunIt(options);
  EXPECT_FALSE(ran.result.started);
  EXPECT_EQ(ran.result.end, End::kKilled);
  EXPECT_TRUE(ran.result.error.text.empty());
  EXPECT_EQ(ran.pid, 0);
  EXPECT_EQ(control.reason(), "early");
}

TEST(Run, AMissingProgramIsAnExecError) {
  RunOptions options = Shell("");
  options.spawn.path = "/nonexistent/program";
  const Ran ran = RunIt(options);
  EXPECT_FALSE(ran.result.started);
  EXPECT_TRUE(ran.result.error.exec);
  EXPECT_EQ(ran.result.error.call, "execve failed");
  EXPECT_EQ(ran.result.error.text, "No such file or directory");
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1) << "the failed child is reaped";
}

TEST(Run, AnUnwritableStderrFileIsADescriptorError) {
  RunOptions options = Shell("");
  options.stderr_path = "/nonexistent/folder/stderr.txt";
  const RunResult result = process::Run(options, nullptr);
  EXPECT_FALSE(result.started);
  EXPECT_FALSE(result.error.exec);
  EXPECT_EQ(result.error.text, "cannot open /nonexistent/folder/stderr.txt: No such file or directory");
}

TEST(Run, AFailedSetUpStepExitsWithItsCode) {
  RunOptions options = Shell("echo ran");
  // Only the last CPU of the largest set: no machine here has it, so sched_setaffinity fails,
  // for root too (a user switch would not fail as root, and the suite runs as root).
  options.spawn.setup.cpus = {CPU_SETSIZE - 1};
  options.spawn.setup.failed_exit_code = 99;
  ASSERT_LT(::sysconf(_SC_NPROCESSORS_CONF), CPU_SETSIZE);
  const Ran ran = RunIt(options);
  ASSERT_TRUE(ran.result.started);
  EXPECT_EQ(DecodeWaitStatus(ran.result.status.value_or(0)).code, 99);
  EXPECT_TRUE(ran.lines.empty());
}

// What a program leaves running in its own group is killed and reaped before Run returns (this
// test is a child subreaper, as torchscand is).
TEST(Run, NothingOfItsGroupOutlivesIt) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  RunOptions options = Shell("sleep 60 & echo $!; exit 0");
  options.spawn.setup.own_process_group = true;
  const Ran ran = RunIt(options);
  ASSERT_EQ(ran.lines.size(), 1u);
  int orphan = 0;
  ASSERT_TRUE(absl::SimpleAtoi(ran.lines[0], &orphan));
  EXPECT_FALSE(Alive(orphan));
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

// Supervise's pieces on their own: a stop flag, a `done` condition, a pid that is no child.
TEST(Supervise, AStopFlagKillsAndDoneReturnsEarly) {
  SpawnOptions spawn;
  spawn.path = "/bin/sleep";
  spawn.args = {"60"};
  Spawned spawned;
  SpawnError error;
  ASSERT_TRUE(Spawn(spawn, &spawned, &error)) << error.text;
  Watch watch;
  EXPECT_EQ(WaitForEnd(spawned.pid, nullptr, watch, [] { return true; }), End::kDone);
  const std::atomic<bool> stop{true};
  watch.stop = &stop;
  EXPECT_EQ(WaitForEnd(spawned.pid, nullptr, watch), End::kKilled);
  const std::optional<int> status = KillAndReap(spawned.pid, End::kKilled, /*own_group=*/false);
  EXPECT_EQ(DecodeWaitStatus(status.value_or(0)).signal, SIGKILL);
  EXPECT_TRUE(Ended(spawned.pid)) << "no longer a child: counts as ended";
  EXPECT_FALSE(KillAndReap(spawned.pid, End::kExited, /*own_group=*/false).has_value());
}

}  // namespace
}  // namespace torchscan::process
