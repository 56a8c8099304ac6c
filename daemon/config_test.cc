#include "daemon/config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

namespace torchscan::daemon {
namespace {

std::string TempDir() { return std::getenv("TEST_TMPDIR"); }

// An executable file standing in for the worker.
std::string FakeWorker() {
  const std::string path = TempDir() + "/torchscan-worker";
  std::ofstream(path) << "#!/bin/sh\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

MachineFacts Machine() {
  MachineFacts m;
  m.available_cpus = {0, 1, 2, 3};
  m.executable_dir = TempDir();
  FakeWorker();
  return m;
}

// Unix socket paths are limited to 107 bytes, too few for TEST_TMPDIR: a short state_dir
// (validation never creates it).
const char* kStateDir = "/tmp/torchscan-config-test/state";

ConfigFlags Minimal() {
  ConfigFlags flags;
  flags.state_dir = kStateDir;
  return flags;
}

// The error of EffectiveConfig after `edit`, which must name `field`.
void ExpectFieldError(const std::string& field, const std::function<void(ConfigFlags&)>& edit) {
  ConfigFlags flags = Minimal();
  edit(flags);
  absl::StatusOr<v1::DaemonConfig> config = EffectiveConfig(flags, Machine());
  ASSERT_FALSE(config.ok()) << field;
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(config.status().message().find(field + ":"), 0u) << config.status();
}

TEST(Config, DefaultsFillEverything) {
  absl::StatusOr<v1::DaemonConfig> config = EffectiveConfig(Minimal(), Machine());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->listen(0), std::string("unix:") + kStateDir + "/torchscand.sock");
  EXPECT_EQ(config->socket_mode(), "0660");
  EXPECT_EQ(config->devices(0), "cpu");
  EXPECT_EQ(config->default_intra_op_threads(), 1);
  EXPECT_EQ(config->default_inter_op_threads(), 1);
  EXPECT_EQ(config->limits().max_queue_length(), 100);
  EXPECT_EQ(config->limits().job_wall_time_s(), 3600);
  EXPECT_EQ(config->limits().worker_memory_bytes(), 0);
  EXPECT_EQ(config->limits().max_upload_bytes(), 64 << 20);
  EXPECT_EQ(config->worker_path(), TempDir() + "/torchscan-worker");
  EXPECT_EQ(config->rss_child_path(), "");  // none beside the fake worker
}

TEST(Config, FlagsOverrideTheFile) {
  const std::string path = TempDir() + "/flags_override.json";
  std::ofstream(path) << R"({"state_dir": "/nowhere", "devices": ["cpu", "cuda:0"],
                             "limits": {"max_queue_length": 5, "job_wall_time_s": 10}})";
  ConfigFlags flags = Minimal();
  flags.config_path = path;
  flags.max_queue_length = 7;
  absl::StatusOr<v1::DaemonConfig> config = EffectiveConfig(flags, Machine());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->state_dir(), kStateDir);
  EXPECT_EQ(config->limits().max_queue_length(), 7);
  EXPECT_EQ(config->limits().job_wall_time_s(), 10);
  EXPECT_EQ(config->devices_size(), 2);
}

TEST(Config, UnknownFieldAndWrongTypeNameTheFileAndField) {
  const std::string path = TempDir() + "/bad.json";
  std::ofstream(path) << R"({"state_dir": "/x", "limits": {"max_queue": 5}})";
  absl::StatusOr<v1::DaemonConfig> unknown = LoadConfigFile(path);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find(path), std::string::npos) << unknown.status();
  EXPECT_NE(unknown.status().message().find("max_queue"), std::string::npos) << unknown.status();

  std::ofstream(path) << R"({"state_dir": "/x", "limits": {"max_queue_length": "many"}})";
  absl::StatusOr<v1::DaemonConfig> wrong = LoadConfigFile(path);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("limits.max_queue_length"), std::string::npos) << wrong.status();
}

TEST(Config, MissingFileIsNotFound) {
  EXPECT_EQ(LoadConfigFile(TempDir() + "/absent.json").status().code(), absl::StatusCode::kNotFound);
}

TEST(Config, EachBadFieldIsNamed) {
  ExpectFieldError("state_dir", [](ConfigFlags& f) { f.state_dir = ""; });
  ExpectFieldError("listen[0]", [](ConfigFlags& f) { f.listen = {"0.0.0.0:50051"}; });
  ExpectFieldError("listen[1]", [](ConfigFlags& f) { f.listen = {"unix:/tmp/a.sock", "127.0.0.1:99999"}; });
  ExpectFieldError("listen[0]", [](ConfigFlags& f) { f.listen = {"unix:" + std::string(120, 'a')}; });
  ExpectFieldError("socket_mode", [](ConfigFlags& f) { f.socket_mode = "rw-rw----"; });
  ExpectFieldError("socket_mode", [](ConfigFlags& f) { f.socket_mode = "0980"; });
  ExpectFieldError("devices[1]", [](ConfigFlags& f) { f.devices = {"cpu", "mps"}; });
  ExpectFieldError("default_intra_op_threads", [](ConfigFlags& f) { f.intra_op_threads = -1; });
  ExpectFieldError("default_inter_op_threads", [](ConfigFlags& f) { f.inter_op_threads = 5000; });
  ExpectFieldError("cpu_set", [](ConfigFlags& f) { f.cpu_set = "0-7"; });
  ExpectFieldError("cpu_set", [](ConfigFlags& f) { f.cpu_set = "3-1"; });
  ExpectFieldError("cpu_set", [](ConfigFlags& f) { f.cpu_set = "one"; });
  ExpectFieldError("limits.max_queue_length", [](ConfigFlags& f) { f.max_queue_length = -1; });
  ExpectFieldError("limits.job_wall_time_s", [](ConfigFlags& f) { f.job_wall_time_s = -5; });
  ExpectFieldError("limits.worker_memory_bytes", [](ConfigFlags& f) { f.worker_memory_bytes = -1; });
  ExpectFieldError("limits.max_upload_bytes", [](ConfigFlags& f) { f.max_upload_bytes = -1; });
  ExpectFieldError("worker_path", [](ConfigFlags& f) { f.worker_path = "/nonexistent/worker"; });
  ExpectFieldError("rss_child_path", [](ConfigFlags& f) { f.rss_child_path = "/nonexistent/child"; });
}

TEST(Config, LoopbackTcpAndUnixAreAccepted) {
  ConfigFlags flags = Minimal();
  flags.listen = {"unix:///tmp/x.sock", "127.0.0.1:0", "localhost:50051", "[::1]:7"};
  flags.cpu_set = "1,3";
  flags.socket_mode = "600";
  EXPECT_TRUE(EffectiveConfig(flags, Machine()).ok());
}

TEST(Config, RssChildIsFoundInTheBazelLayout) {
  const std::string root = TempDir() + "/layout";
  ::mkdir(root.c_str(), 0755);
  for (const char* dir : {"/daemon", "/core", "/core/workloads"}) ::mkdir((root + dir).c_str(), 0755);
  for (const char* file : {"/daemon/torchscan-worker", "/core/workloads/torchscan_rss_child"}) {
    std::ofstream(root + file) << "#!/bin/sh\n";
    ::chmod((root + file).c_str(), 0755);
  }
  MachineFacts machine = Machine();
  machine.executable_dir = root + "/daemon";
  absl::StatusOr<v1::DaemonConfig> config = EffectiveConfig(Minimal(), machine);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->rss_child_path(), root + "/core/workloads/torchscan_rss_child");
}

TEST(Config, CpuListsParse) {
  EXPECT_EQ(*ParseCpuList("0-2, 5,1"), (std::vector<int>{0, 1, 2, 5}));
  EXPECT_FALSE(ParseCpuList("").ok());
  EXPECT_FALSE(ParseCpuList("1-").ok());
  EXPECT_FALSE(ParseCpuList("-1").ok());
  EXPECT_FALSE(ParseCpuList("99999").ok());
}

TEST(Config, SocketModesParse) {
  EXPECT_EQ(*ParseSocketMode("0660"), 0660u);
  EXPECT_EQ(*ParseSocketMode("600"), 0600u);
  EXPECT_FALSE(ParseSocketMode("1777").ok());
  EXPECT_FALSE(ParseSocketMode("66").ok());
}

TEST(Config, UnixSocketPaths) {
  EXPECT_EQ(UnixSocketPath("unix:/a/b.sock"), "/a/b.sock");
  EXPECT_EQ(UnixSocketPath("unix:///a/b.sock"), "/a/b.sock");
  EXPECT_EQ(UnixSocketPath("127.0.0.1:5"), std::nullopt);
}

}  // namespace
}  // namespace torchscan::daemon
