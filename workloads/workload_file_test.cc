#include "workloads/workload_file.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace torchscan::workloads {
namespace {

std::string TempPath(const std::string& name) { return std::string(std::getenv("TEST_TMPDIR")) + "/" + name; }

TEST(WorkloadFile, RecordsNameSizeAndSha256EitherWay) {
  const FileRecord uploaded = RecordFile("abc", "/home/ann/mlp.pt", true);
  EXPECT_EQ(uploaded.sha256, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(uploaded.bytes, 3);
  EXPECT_EQ(uploaded.Description(), "/home/ann/mlp.pt (uploaded, 3 bytes)");
  EXPECT_EQ(RecordFile("abc", "", true).Description(), "uploaded bytes (3 bytes)");
  const FileRecord read = RecordFile("abc", "/data/mlp.pt", false);
  EXPECT_EQ(read.sha256, uploaded.sha256);
  EXPECT_EQ(read.Description(), "/data/mlp.pt (read on the daemon's machine, 3 bytes)");
}

TEST(WorkloadFile, ReadsARegularFileWhole) {
  const std::string path = TempPath("whole.bin");
  const std::string bytes = std::string(200000, 'x') + std::string("\0end", 4);
  std::ofstream(path, std::ios::binary) << bytes;
  absl::StatusOr<std::string> read = ReadWorkerFile(path, "inputs[0].tensor_file");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, bytes);
  absl::StatusOr<int64_t> size = WorkerFileSize(path, "inputs[0].tensor_file");
  ASSERT_TRUE(size.ok()) << size.status();
  EXPECT_EQ(*size, static_cast<int64_t>(bytes.size()));
}

TEST(WorkloadFile, AMissingFileNamesTheFieldTheUserAndTheUpload) {
  const absl::StatusOr<std::string> read = ReadWorkerFile("/nonexistent/model.pt", "model.torchscript.path");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kNotFound);
  for (const std::string& part : {std::string("model.torchscript.path: "), std::string("'/nonexistent/model.pt'"),
                                  std::string("No such file or directory"),
                                  absl::StrCat("running as user ", ProcessUser()), std::string("--daemon-path")})
    EXPECT_TRUE(absl::StrContains(read.status().message(), part)) << part << " in " << read.status();
}

TEST(WorkloadFile, NotARegularFileIsRefusedUnread) {
  for (const std::string& path : {std::string("/dev/zero"), TempPath("")}) {
    const absl::StatusOr<int64_t> size = WorkerFileSize(path, "model.torchscript.path");
    ASSERT_FALSE(size.ok()) << path;
    EXPECT_EQ(size.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(size.status().message(), "not a regular file")) << size.status();
  }
}

TEST(WorkloadFile, ProcessUserNamesTheEffectiveUid) {
  EXPECT_TRUE(absl::StrContains(ProcessUser(), absl::StrCat("uid ", ::geteuid()))) << ProcessUser();
  if (::geteuid() == 0) {
    EXPECT_EQ(ProcessUser(), "root (uid 0)");
  }
}

// A file in a folder only its owner may enter, read by another user: as root, a child that
// switches to nobody (as torchscand's workers do); otherwise the test's own user, on a file
// it made unreadable.
TEST(WorkloadFile, PermissionDeniedNamesTheUserThatTried) {
  const std::string dir = TempPath("closed");
  ::mkdir(dir.c_str(), 0700);
  const std::string path = dir + "/mlp.pt";
  std::ofstream(path) << "module";
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    if (::geteuid() == 0) {
      if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
    } else {
      ::chmod(path.c_str(), 0);
    }
    const absl::StatusOr<std::string> read = ReadWorkerFile(path, "model.torchscript.path");
    const std::string text = read.ok() ? "read it" : absl::StrCat(ProcessUser(), "|", read.status().message());
    (void)!::write(pipe_fds[1], text.data(), text.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof(buffer))) > 0;) text.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child could not switch users";
  const size_t bar = text.find('|');
  ASSERT_NE(bar, std::string::npos) << text;
  const std::string user = text.substr(0, bar), message = text.substr(bar + 1);
  if (::geteuid() == 0) {
    EXPECT_TRUE(absl::StartsWith(user, "nobody (uid 65534)")) << user;
  } else {
    EXPECT_EQ(user, ProcessUser()) << "the child runs as the test's own user";
  }
  EXPECT_TRUE(absl::StrContains(message, "running as user " + user)) << message;
  EXPECT_TRUE(absl::StrContains(message, "Permission denied")) << message;
  EXPECT_TRUE(absl::StrContains(message, path)) << message;
}

}  // namespace
}  // namespace torchscan::workloads
