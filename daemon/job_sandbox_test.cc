#include "daemon/job_sandbox.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace torchscan::daemon {
namespace {

namespace fs = std::filesystem;

bool Has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

v1::DaemonConfig Config(const std::string& name) {
  v1::DaemonConfig config;
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir + "/state");
  config.set_state_dir(dir + "/state");
  config.set_worker_path(std::string(std::getenv("TEST_SRCDIR")) + "/torchscan/daemon/fake_worker");
  std::ofstream(dir + "/tokens") << "alice 0123456789abcdef0123\n";
  config.set_token_file(dir + "/tokens");
  config.set_sandbox("namespaces");
  config.add_shared_paths("/usr/share");
  return config;
}

TEST(JobSandbox, ShowsTheSystemTheWorkerAndSharedPathsAndHidesTheDaemonsFiles) {
  v1::DaemonConfig config = Config("shows");
  config.set_config_file(config.state_dir() + "/../shows.json");  // beside it: under no hidden folder
  std::ofstream(config.config_file()) << "{}";
  absl::StatusOr<JobSandbox> sandbox = JobSandbox::Create(config);
  ASSERT_TRUE(sandbox.ok()) << sandbox.status();
  const process::SandboxSpec& base = sandbox->base();
  EXPECT_EQ(base.root, config.state_dir() + "/sandbox");
  EXPECT_TRUE(fs::is_empty(base.root));
  for (const char* dir : {"/usr", "/etc", "/usr/share"}) EXPECT_TRUE(Has(base.read_only, dir)) << dir;
  // The worker as the loader sees it: its folder resolved, the file itself (a runfiles link) kept.
  const fs::path worker(config.worker_path());
  EXPECT_TRUE(Has(base.read_only, (fs::canonical(worker.parent_path()) / worker.filename()).string()));
  for (const std::string& secret :
       {config.state_dir(), config.token_file(), config.config_file(), std::string("/etc/shadow")})
    EXPECT_TRUE(Has(base.hidden, secret)) << secret;
  EXPECT_TRUE(base.read_write.empty());  // each job adds its own folder
  EXPECT_TRUE(sandbox->Probe(-1, -1).ok());
}

TEST(JobSandbox, ARootFolderWithFilesInItIsRefused) {
  const v1::DaemonConfig config = Config("refused");
  fs::create_directories(config.state_dir() + "/sandbox");
  std::ofstream(config.state_dir() + "/sandbox/left") << "x";
  absl::StatusOr<JobSandbox> sandbox = JobSandbox::Create(config);
  ASSERT_FALSE(sandbox.ok());
  EXPECT_EQ(sandbox.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(sandbox.status().message().find(config.state_dir() + "/sandbox must be an empty folder"), std::string::npos)
      << sandbox.status();
}

TEST(JobSandbox, AJobsPlanAddsItsFolder) {
  const v1::DaemonConfig config = Config("plan");
  absl::StatusOr<JobSandbox> sandbox = JobSandbox::Create(config);
  ASSERT_TRUE(sandbox.ok()) << sandbox.status();
  fs::create_directories(config.state_dir() + "/jobs/job-000001");
  EXPECT_TRUE(sandbox->PlanFor(config.state_dir() + "/jobs/job-000001").ok());
  const auto missing = sandbox->PlanFor(config.state_dir() + "/jobs/job-000002");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("job-000002: cannot be read"), std::string::npos) << missing.status();
}

}  // namespace
}  // namespace torchscan::daemon
