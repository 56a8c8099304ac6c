#include "io/file_io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

namespace torchscan {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

TEST(ReadFile, RefusesFoldersAndEndlessStreamsNamingThePath) {
  const std::string dir = TempPath("");
  absl::StatusOr<std::string> folder = ReadFile(dir);
  EXPECT_EQ(folder.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(folder.status().message().find("is a folder"), std::string::npos) << folder.status();
  absl::StatusOr<std::string> endless = ReadFile("/dev/zero");
  EXPECT_EQ(endless.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(endless.status().message().find("/dev/zero is larger than"), std::string::npos) << endless.status();
  const std::string path = TempPath("small.txt");
  std::ofstream(path) << "abc";
  EXPECT_EQ(ReadFile(path).value_or(""), "abc");
}

// /proc and /sys files report a size of 0 and still hold text (core/environment.cc reads
// the machine's facts from them).
TEST(ReadFile, ReadsProcFilesAndReportsMissingOnes) {
  struct stat info;
  ASSERT_EQ(::stat("/proc/self/status", &info), 0);
  EXPECT_EQ(info.st_size, 0);
  const absl::StatusOr<std::string> status = ReadFile("/proc/self/status");
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_NE(status->find("Pid:"), std::string::npos);
  EXPECT_FALSE(ReadFile("/nonexistent/torchscan/file").ok());
}

TEST(ReadFile, MissingFileIsNotFoundNamingThePath) {
  absl::StatusOr<std::string> missing = ReadFile(TempPath("does-not-exist.txt"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("does-not-exist.txt"), std::string::npos) << missing.status();
}

TEST(WriteFileAtomic, IntoAMissingFolderFailsNamingIt) {
  const absl::Status s = WriteFileAtomic(TempPath("no/such/folder/r.json"), "{}");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("no/such/folder"), std::string::npos);
}

TEST(WriteFileAtomic, AFailedWriteKeepsThePreviousFile) {
  const std::string path = TempPath("kept.txt");
  ASSERT_TRUE(WriteFileAtomic(path, "old").ok());
  // A folder with the temporary file's name makes the next write fail before the rename.
  const std::string blocker = path + ".tmp." + std::to_string(getpid());
  ASSERT_EQ(std::system(("mkdir -p '" + blocker + "'").c_str()), 0);
  EXPECT_FALSE(WriteFileAtomic(path, "new").ok());
  EXPECT_EQ(ReadFile(path).value_or(""), "old");
}

// A link planted at the temporary file's name (someone else can write to the folder) is
// removed, not followed: what it points to is untouched. A new file gets the mode asked for.
TEST(WriteFileAtomic, ALinkAtTheTemporaryNameIsNotFollowed) {
  const std::string target = TempPath("target.txt");
  ASSERT_TRUE(WriteFileAtomic(target, "untouched").ok());
  const std::string path = TempPath("written.txt");
  ASSERT_EQ(::symlink(target.c_str(), (path + ".tmp." + std::to_string(getpid())).c_str()), 0);
  ASSERT_TRUE(WriteFileAtomic(path, "new", 0600).ok());
  EXPECT_EQ(ReadFile(path).value_or(""), "new");
  EXPECT_EQ(ReadFile(target).value_or(""), "untouched");
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(WriteFileAtomic, ReplacesTheWholeFile) {
  const std::string path = TempPath("replaced.txt");
  ASSERT_TRUE(WriteFileAtomic(path, "a longer first text").ok());
  ASSERT_TRUE(WriteFileAtomic(path, "short").ok());
  EXPECT_EQ(ReadFile(path).value_or(""), "short");
}

// A module's prints fill its job's stderr file: the daemon keeps the last bytes, which hold
// why it ended, and says how much went.
TEST(KeepTail, KeepsTheLastBytesOfALargeFileAndSaysHowManyWent) {
  const std::string path = TempPath("tail.txt");
  ASSERT_TRUE(WriteFileAtomic(path, std::string(1000, 'x') + "the end\n", 0600).ok());
  ASSERT_TRUE(KeepTail(path, 8).ok());
  EXPECT_EQ(ReadFile(path).value_or(""), "[1000 earlier bytes not kept]\nthe end\n");
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_TRUE(KeepTail(path, 1000).ok());  // small enough: unchanged
  EXPECT_EQ(ReadFile(path).value_or(""), "[1000 earlier bytes not kept]\nthe end\n");
  EXPECT_TRUE(KeepTail(TempPath("no-such-file"), 8).ok());
}

}  // namespace
}  // namespace torchscan
