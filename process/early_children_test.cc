#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "process/run.h"

namespace torchscan::process {
namespace {

std::string Script(const std::string& name, const std::string& body) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  EXPECT_EQ(::chmod(path.c_str(), 0755), 0);
  return path;
}

// A bash program that reads each early child's pid line and what the child wrote after it.
RunOptions Reader(const std::vector<EarlyChild>& children) {
  RunOptions options;
  options.spawn.path = "/bin/bash";
  options.spawn.args = {"-c", R"sh(for w in "$@"; do
  s=${w%%:*}; read -r pid <&"$s"; read -r said <&"$s"; echo "pid $pid said $said"
done)sh",
                        "reader"};
  options.spawn.early.name = "test children";
  options.spawn.early.children = children;
  options.spawn.early.args_for = [](int socket_fd, int stderr_fd) {
    return std::vector<std::string>{absl::StrCat(socket_fd, ":", stderr_fd)};
  };
  options.spawn.setup.own_process_group = true;  // what is left is killed with its group
  options.stderr_path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/reader.stderr");
  return options;
}

TEST(EarlyChildren, EachWritesItsPidLineThenRunsItsProgramWithItsArgs) {
  const std::string child = Script("echo-child", "echo \"$1 $2\"; exec sleep 60");
  std::vector<std::string> lines;
  int started = -1;
  const RunResult result = process::Run(
      Reader({{child, {"a", "b"}, ""}, {child, {"c", "d"}, ""}}),
      [&](const std::string& line) { lines.push_back(line); },
      [&](const Spawned& spawned) { started = spawned.early_started; });
  ASSERT_TRUE(result.started) << result.error.text;
  EXPECT_EQ(started, 2);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(absl::EndsWith(lines[0], " said a b")) << lines[0];
  EXPECT_TRUE(absl::EndsWith(lines[1], " said c d")) << lines[1];
  int first = 0, second = 0;
  ASSERT_TRUE(absl::SimpleAtoi(lines[0].substr(4, lines[0].find(" said") - 4), &first)) << lines[0];
  ASSERT_TRUE(absl::SimpleAtoi(lines[1].substr(4, lines[1].find(" said") - 4), &second)) << lines[1];
  EXPECT_GT(first, 0);
  EXPECT_NE(first, second);
}

// A child whose exec fails says the caller's message on its stderr (an anonymous file the
// program may read) and exits 127.
TEST(EarlyChildren, AChildThatCannotExecSaysTheCallersMessage) {
  RunOptions options = Reader({{"/nonexistent/child", {}, "cannot execute the test child\n"}});
  options.spawn.args[1] = R"sh(e=${1##*:}; s=${1%%:*}; read -r pid <&"$s"; cat <&"$s" >/dev/null; echo "pid $pid"
cat /proc/self/fd/$e)sh";
  std::vector<std::string> lines;
  const RunResult result = process::Run(options, [&](const std::string& line) { lines.push_back(line); });
  ASSERT_TRUE(result.started) << result.error.text;
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0], "pid 0");  // it was forked
  EXPECT_EQ(lines[1], "cannot execute the test child");
}

// The main program's exec fails: Run fails, and neither it nor its early children are left,
// not even as zombies (this test is a child subreaper, as torchscand is).
TEST(EarlyChildren, AProgramThatCannotExecLeavesNoChildBehind) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const std::string child = Script("sleeping-child", "exec sleep 60");
  RunOptions options = Reader({{child, {}, ""}, {child, {}, ""}});
  options.spawn.path = Script("not-a-program", "") + ".missing";
  const RunResult result = process::Run(options, nullptr);
  EXPECT_FALSE(result.started);
  EXPECT_TRUE(result.error.exec);
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1) << "a child of this process is left";
  EXPECT_EQ(errno, ECHILD);
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

}  // namespace
}  // namespace torchscan::process
