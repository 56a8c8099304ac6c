#include "client/report_cache.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "io/file_io.h"

namespace torchscan {
namespace {

namespace fs = std::filesystem;

std::string ReportsDir(const std::string& name) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name + "/reports";
  fs::create_directories(dir);
  return dir;
}

void Page(const std::string& path) { std::ofstream(path) << "page\n"; }

v1::DaemonInfo InfoWithStateDir(const std::string& state_dir) {
  v1::DaemonInfo info;
  info.mutable_config()->set_state_dir(state_dir);
  return info;
}

TEST(ReportCache, TheOwnerNamesTheAddressAndTheStateDir) {
  const v1::DaemonInfo info = InfoWithStateDir("/var/lib/torchscan");
  EXPECT_EQ(ReportCacheOwner("unix:/run/t.sock", &info), "address unix:/run/t.sock\nstate_dir /var/lib/torchscan\n");
  EXPECT_EQ(ReportCacheOwner("host:7000", nullptr), "address host:7000\nstate_dir \n");
  const v1::DaemonInfo other = InfoWithStateDir("/srv/other");
  EXPECT_NE(ReportCacheOwner("host:7000", &info), ReportCacheOwner("host:7000", &other));
}

TEST(ReportCache, TheSameDaemonKeepsItsPages) {
  const std::string dir = ReportsDir("same");
  const v1::DaemonInfo info = InfoWithStateDir("/a");
  const std::string owner = ReportCacheOwner("host:1", &info);
  bool cleared = true;
  ASSERT_TRUE(ClaimReportCache(dir, owner, &cleared).ok());
  EXPECT_FALSE(cleared);  // nothing was there
  Page(dir + "/job-000001.json");
  Page(dir + "/job-000001.html");
  ASSERT_TRUE(ClaimReportCache(dir, owner, &cleared).ok());
  EXPECT_FALSE(cleared);
  EXPECT_TRUE(fs::exists(dir + "/job-000001.json"));
  EXPECT_TRUE(fs::exists(dir + "/job-000001.html"));
}

// Another daemon's job-000001 is another job: its pages go, daemon.txt names the new owner.
TEST(ReportCache, AnotherDaemonsPagesAreRemoved) {
  const std::string dir = ReportsDir("other");
  const v1::DaemonInfo a = InfoWithStateDir("/a");
  const v1::DaemonInfo b = InfoWithStateDir("/b");
  bool cleared = false;
  ASSERT_TRUE(ClaimReportCache(dir, ReportCacheOwner("host:1", &a), &cleared).ok());
  Page(dir + "/job-000001.json");
  Page(dir + "/job-000001.html");
  Page(dir + "/notes.txt");  // not a page: kept
  ASSERT_TRUE(ClaimReportCache(dir, ReportCacheOwner("host:2", &b), &cleared).ok());
  EXPECT_TRUE(cleared);
  EXPECT_FALSE(fs::exists(dir + "/job-000001.json"));
  EXPECT_FALSE(fs::exists(dir + "/job-000001.html"));
  EXPECT_TRUE(fs::exists(dir + "/notes.txt"));
  EXPECT_EQ(*ReadFile(dir + "/" + kReportCacheOwnerFile), ReportCacheOwner("host:2", &b));
}

// Pages without daemon.txt (an older client wrote them): whose they are is unknown.
TEST(ReportCache, PagesOfAnUnknownDaemonAreRemoved) {
  const std::string dir = ReportsDir("unknown");
  Page(dir + "/job-000002.json");
  Page(dir + "/job-000002.html");
  bool cleared = false;
  ASSERT_TRUE(ClaimReportCache(dir, ReportCacheOwner("host:1", nullptr), &cleared).ok());
  EXPECT_TRUE(cleared);
  EXPECT_FALSE(fs::exists(dir + "/job-000002.json"));
  EXPECT_TRUE(fs::exists(dir + "/" + kReportCacheOwnerFile));
}

}  // namespace
}  // namespace torchscan
