#include "client/output_folder.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace torchscan {
namespace {

namespace fs = std::filesystem;

std::string Fresh(const std::string& name) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool Has(const absl::Status& s, const std::string& text) {
  return std::string(s.message()).find(text) != std::string::npos;
}

TEST(CheckOutputFolder, AMissingOrEmptyFolderIsFine) {
  const std::string dir = Fresh("fine");
  EXPECT_TRUE(CheckOutputFolder(dir, EvidenceFiles(false), false).ok());
  EXPECT_TRUE(CheckOutputFolder(dir + "/new/deeper", EvidenceFiles(true), false).ok());
}

TEST(CheckOutputFolder, AFileIsRefusedAsAFolder) {
  const std::string dir = Fresh("file");
  std::ofstream(dir + "/afile") << "x";
  absl::Status s = CheckOutputFolder(dir + "/afile", EvidenceFiles(false), false);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(s, "--output: " + dir + "/afile is a file, not a folder")) << s;
  s = CheckOutputFolder(dir + "/afile/sub", EvidenceFiles(false), false);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(s, dir + "/afile is a file, not a folder")) << s;
}

TEST(CheckOutputFolder, OverwritingIsRefusedUnlessForced) {
  const std::string dir = Fresh("overwrite");
  std::ofstream(dir + "/report.json") << "{}";
  absl::Status s = CheckOutputFolder(dir, EvidenceFiles(false), false);
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(Has(s, "--output: " + dir + "/report.json already exists (from an earlier run)")) << s;
  EXPECT_TRUE(Has(s, "add --force")) << s;
  EXPECT_TRUE(CheckOutputFolder(dir, EvidenceFiles(false), true).ok());
  EXPECT_TRUE(CheckOutputFolder(dir, EvidenceFiles(true), false).ok());  // a comparison writes other files
}

TEST(CheckOutputFolder, PerMachineLooksIntoEachMachinesFolder) {
  const std::string dir = Fresh("machines");
  fs::create_directories(dir + "/bench1");
  EXPECT_TRUE(CheckOutputFolder(dir, EvidenceFiles(true), false, true).ok());
  std::ofstream(dir + "/bench1/comparison.html") << "<html>";
  absl::Status s = CheckOutputFolder(dir, EvidenceFiles(true), false, true);
  EXPECT_TRUE(Has(s, dir + "/bench1/comparison.html already exists")) << s;
}

// As nobody (root writes anywhere): a folder it cannot write is refused before submitting.
TEST(CheckOutputFolder, AFolderYouCannotWriteIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  char base[] = "/tmp/tsof-XXXXXX";
  ASSERT_NE(::mkdtemp(base), nullptr);
  ::chmod(base, 0755);  // root's, closed to writes by others
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(9);
    const std::string text =
        std::string(CheckOutputFolder(std::string(base) + "/out", EvidenceFiles(false), false).message()) + "|" +
        std::string(CheckOutputFolder(base, EvidenceFiles(false), true).message());
    (void)!::write(fds[1], text.data(), text.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  char buffer[4096];
  const ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
  ::close(fds[0]);
  ::waitpid(pid, nullptr, 0);
  const std::string text(buffer, n > 0 ? n : 0);
  EXPECT_NE(text.find("--output: cannot create " + std::string(base) + "/out: " + base + " is not writable by you"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("|--output: " + std::string(base) + " is not writable by you"), std::string::npos) << text;
  fs::remove_all(base);
}

TEST(DefaultOutputFolder, TorchscanJobIdNeverAnEarlierRunsFolder) {
  const std::string dir = Fresh("default");
  const fs::path previous = fs::current_path();
  fs::current_path(dir);
  EXPECT_EQ(DefaultOutputFolder("job-000001"), "./torchscan-job-000001");
  fs::create_directory("torchscan-job-000001");
  EXPECT_EQ(DefaultOutputFolder("job-000001"), "./torchscan-job-000001-2");
  fs::create_directory("torchscan-job-000001-2");
  EXPECT_EQ(DefaultOutputFolder("job-000001"), "./torchscan-job-000001-3");
  EXPECT_TRUE(CheckCurrentFolderWritable().ok());
  fs::current_path(previous);
}

TEST(DefaultHistoryFolder, TheNameMadeSafeForOneFolder) {
  EXPECT_EQ(DefaultHistoryFolder("resnet18-batch_8.v2"), "./torchscan-history-resnet18-batch_8.v2");
  EXPECT_EQ(DefaultHistoryFolder("../etc/x y"), "./torchscan-history-.._etc_x_y");
  EXPECT_EQ(DefaultHistoryFolder("caf\xc3\xa9"), "./torchscan-history-caf__");
  EXPECT_EQ(DefaultHistoryFolder(std::string(300, 'a')), "./torchscan-history-" + std::string(100, 'a'));
}

}  // namespace
}  // namespace torchscan
