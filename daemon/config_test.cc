#include "daemon/config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

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
  EXPECT_EQ(config->limits().max_queued_per_user(), 25);  // a quarter of the queue
  EXPECT_EQ(config->limits().job_wall_time_s(), 1800);
  EXPECT_EQ(config->limits().worker_memory_bytes(), 0);
  EXPECT_EQ(config->limits().max_upload_bytes(), 64 << 20);
  EXPECT_EQ(config->noise_floor_max_age_s(), 7 * 24 * 3600);
  EXPECT_EQ(config->worker_path(), TempDir() + "/torchscan-worker");
  EXPECT_EQ(config->rss_child_path(), "");     // none beside the fake worker
  EXPECT_EQ(config->sandbox(), "namespaces");  // a private daemon asks for "off"
}

// A daemon told nothing about devices offers the CPU and every GPU the driver shows; one told
// its devices offers those alone.
TEST(Config, DevicesDefaultToTheCpuAndTheVisibleGpus) {
  MachineFacts machine = Machine();
  machine.visible_gpus = 2;
  absl::StatusOr<v1::DaemonConfig> config = EffectiveConfig(Minimal(), machine);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(std::vector<std::string>(config->devices().begin(), config->devices().end()),
            (std::vector<std::string>{"cpu", "cuda:0", "cuda:1"}));
  ConfigFlags flags = Minimal();
  flags.devices = {"cpu"};
  config = EffectiveConfig(flags, machine);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->devices_size(), 1);
}

TEST(Config, FlagsOverrideTheFile) {
  const std::string path = TempDir() + "/flags_override.json";
  std::ofstream(path) << R"({"state_dir": "/nowhere", "devices": ["cpu", "cuda:0"], "config_file": "/elsewhere",
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
  EXPECT_EQ(config->config_file(), path);  // the file it was read from, whatever the file says
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
  ExpectFieldError("listen[0]", [](ConfigFlags& f) { f.listen = {"7411"}; });
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
  ExpectFieldError("limits.max_queued_per_user", [](ConfigFlags& f) { f.max_queued_per_user = -1; });
  ExpectFieldError("limits.max_queued_per_user", [](ConfigFlags& f) {
    f.max_queue_length = 4;
    f.max_queued_per_user = 5;
  });
  ExpectFieldError("limits.job_wall_time_s", [](ConfigFlags& f) { f.job_wall_time_s = -5; });
  ExpectFieldError("limits.worker_memory_bytes", [](ConfigFlags& f) { f.worker_memory_bytes = -2; });
  ExpectFieldError("limits.max_upload_bytes", [](ConfigFlags& f) { f.max_upload_bytes = -1; });
  ExpectFieldError("noise_floor_max_age_s", [](ConfigFlags& f) { f.noise_floor_max_age_s = -1; });
  ExpectFieldError("worker_path", [](ConfigFlags& f) { f.worker_path = "/nonexistent/worker"; });
  ExpectFieldError("rss_child_path", [](ConfigFlags& f) { f.rss_child_path = "/nonexistent/child"; });
  ExpectFieldError("sandbox", [](ConfigFlags& f) { f.sandbox = "bubblewrap"; });
  ExpectFieldError("shared_paths[1]", [](ConfigFlags& f) {
    f.sandbox = "namespaces";
    f.shared_paths = {"/usr/share", "datasets"};
  });
  ExpectFieldError("shared_paths[0]", [](ConfigFlags& f) { f.shared_paths = {"/nonexistent/datasets"}; });
}

TEST(Config, SlurmKeysAreCheckedAndDefaulted) {
  // A front needs the node-side program here (beside torchscand) unless node_bin_dir names the nodes' folder.
  ExpectFieldError("slurm.partition", [](ConfigFlags& f) { f.slurm.gres = "gpu:1"; });
  ExpectFieldError("slurm.partition", [](ConfigFlags& f) { f.slurm.partition = "a b"; });
  ExpectFieldError("slurm.account", [](ConfigFlags& f) {
    f.slurm.partition = "bench";
    f.slurm.account = "x,y";
  });
  ExpectFieldError("slurm.time_limit", [](ConfigFlags& f) {
    f.slurm.partition = "bench";
    f.slurm.time_limit = "an hour";
  });
  ExpectFieldError("slurm.node_bin_dir", [](ConfigFlags& f) { f.slurm.partition = "bench"; });  // no node job here
  ExpectFieldError("slurm.node_bin_dir", [](ConfigFlags& f) {
    f.slurm.partition = "bench";
    f.slurm.node_bin_dir = "relative/bin";
  });
  ConfigFlags flags = Minimal();
  flags.slurm.partition = "bench";
  flags.slurm.node_bin_dir = "/opt/torchscan/bin";
  flags.job_wall_time_s = 600;
  const std::string path = getenv("PATH") ? getenv("PATH") : "";
  // sbatch and the other client commands are found on PATH: a folder of stand-ins.
  const std::string bin = TempDir() + "/slurm-bin";
  ::mkdir(bin.c_str(), 0755);
  for (const char* tool : {"sbatch", "squeue", "scancel", "sinfo"}) {
    std::ofstream(bin + "/" + tool) << "#!/bin/sh\n";
    ::chmod((bin + "/" + tool).c_str(), 0755);
  }
  ::setenv("PATH", bin.c_str(), 1);
  absl::StatusOr<v1::DaemonConfig> config = EffectiveConfig(flags, Machine());
  ::unlink((bin + "/scancel").c_str());
  absl::StatusOr<v1::DaemonConfig> no_scancel = EffectiveConfig(flags, Machine());
  ::setenv("PATH", path.c_str(), 1);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->slurm().time_limit(), "15");  // 600 s + 5 minutes
  EXPECT_TRUE(IsSlurmFront(*config));
  ASSERT_FALSE(no_scancel.ok());
  EXPECT_NE(no_scancel.status().message().find("scancel on PATH"), std::string::npos) << no_scancel.status();
  EXPECT_NE(no_scancel.status().message().find("apt-get install slurm-client"), std::string::npos);
  const NodePrograms programs = NodeProgramsOf(*config, "/front/torchscan-node-job");
  EXPECT_EQ(programs.node_job, "/opt/torchscan/bin/torchscan-node-job");
  EXPECT_EQ(programs.worker, "/opt/torchscan/bin/torchscan-worker");
  EXPECT_FALSE(IsSlurmFront(*EffectiveConfig(Minimal(), Machine())));
}

// A file with `text` and permissions `mode` in the test's folder.
std::string WriteFile(const std::string& name, const std::string& text, mode_t mode = 0600) {
  const std::string path = TempDir() + "/" + name;
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
  return path;
}

// Flags with TLS files (content only needs to look like PEM here) and a token file.
ConfigFlags WithCredentials() {
  ConfigFlags flags = Minimal();
  flags.tls_cert_file = WriteFile("cert.pem", "-----BEGIN CERTIFICATE-----\n");
  flags.tls_key_file = WriteFile("key.pem", "-----BEGIN PRIVATE KEY-----\n");
  flags.token_file = WriteFile("tokens", "alice 0123456789abcdef0123\n");
  return flags;
}

TEST(Config, UnixAndTcpWithCredentialsAreAccepted) {
  ConfigFlags flags = WithCredentials();
  flags.listen = {"unix:///tmp/x.sock", "127.0.0.1:0", "0.0.0.0:7411", "[::1]:7", "bench-01.lab:7411"};
  flags.cpu_set = "1,3";
  flags.socket_mode = "600";
  absl::StatusOr<v1::DaemonConfig> config = EffectiveConfig(flags, Machine());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->tls().cert_file(), TempDir() + "/cert.pem");
  EXPECT_EQ(config->limits().worker_open_files(), 1024);
}

TEST(Config, TcpWithoutCredentialsIsRefused) {
  for (const char* address : {"127.0.0.1:0", "0.0.0.0:7411"}) {
    ExpectFieldError("listen[1]", [&](ConfigFlags& f) { f.listen = {"unix:/tmp/a.sock", address}; });
    ExpectFieldError("listen[0]", [&](ConfigFlags& f) {
      f = WithCredentials();
      f.listen = {address};
      f.token_file.reset();
    });
    ExpectFieldError("listen[0]", [&](ConfigFlags& f) {
      f = WithCredentials();
      f.listen = {address};
      f.tls_cert_file.reset();
      f.tls_key_file.reset();
    });
  }
}

TEST(Config, CredentialFilesAreChecked) {
  auto with = [](const std::function<void(ConfigFlags&)>& edit) {
    return [edit](ConfigFlags& f) {
      f = WithCredentials();
      f.listen = {"0.0.0.0:7411"};
      edit(f);
    };
  };
  ExpectFieldError("tls.key_file", with([](ConfigFlags& f) { f.tls_key_file.reset(); }));
  ExpectFieldError("tls.cert_file", with([](ConfigFlags& f) { f.tls_cert_file = "/nonexistent/cert.pem"; }));
  ExpectFieldError("tls.cert_file", with([](ConfigFlags& f) { f.tls_cert_file = WriteFile("not.pem", "hello"); }));
  ExpectFieldError("tls.client_ca_file",
                   with([](ConfigFlags& f) { f.tls_client_ca_file = WriteFile("ca.txt", "no pem here"); }));
  ExpectFieldError("token_file", with([](ConfigFlags& f) { f.token_file = "/nonexistent/tokens"; }));
  ExpectFieldError("token_file", with([](ConfigFlags& f) {
                     f.token_file = WriteFile("loose", "alice 0123456789abcdef0123\n", 0644);
                   }));
  ExpectFieldError("token_file", with([](ConfigFlags& f) { f.token_file = WriteFile("short", "alice abc\n"); }));
  ExpectFieldError("tls.client_ca_file",
                   [](ConfigFlags& f) { f.tls_client_ca_file = WriteFile("ca.pem", "-----BEGIN CERTIFICATE-----\n"); });
}

// A worker under /tmp/<name>/bin in a folder with permissions `mode`, as a root machine sees it.
MachineFacts RootMachineWithWorkerIn(const std::string& name, mode_t mode) {
  // Under /tmp (open to all, unlike $TEST_TMPDIR's parents), one folder per test process.
  const std::string dir = "/tmp/torchscan-config-test-" + name + "-" + std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0755);
  ::chmod(dir.c_str(), mode);
  ::mkdir((dir + "/bin").c_str(), 0755);
  std::ofstream(dir + "/bin/torchscan-worker") << "#!/bin/sh\n";
  ::chmod((dir + "/bin/torchscan-worker").c_str(), 0755);
  MachineFacts machine = Machine();
  machine.executable_dir = dir + "/bin";
  machine.is_root = true;
  return machine;
}

TEST(Config, WorkerUserDependsOnRunningAsRoot) {
  const MachineFacts root = RootMachineWithWorkerIn("open", 0755);
  absl::StatusOr<v1::DaemonConfig> config = EffectiveConfig(Minimal(), root);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->worker_user(), "nobody");

  ConfigFlags flags = Minimal();
  flags.worker_user = "root";  // a private unix-socket daemon may keep root
  EXPECT_TRUE(EffectiveConfig(flags, root).ok());
  flags = WithCredentials();
  flags.listen = {"0.0.0.0:7411"};
  flags.worker_user = "root";
  EXPECT_EQ(EffectiveConfig(flags, root).status().message().find("worker_user: workers run untrusted"), 0u);
  flags = Minimal();
  flags.worker_user = "no-such-user-torchscan";
  EXPECT_EQ(EffectiveConfig(flags, root).status().message().find("worker_user: no user named"), 0u);

  MachineFacts unprivileged = Machine();
  unprivileged.is_root = false;
  flags.worker_user = "nobody";
  EXPECT_EQ(EffectiveConfig(flags, unprivileged).status().message().find("worker_user: torchscand is not"), 0u);
  EXPECT_EQ(EffectiveConfig(Minimal(), unprivileged)->worker_user(), "");
}

TEST(Config, TheWorkerUserMustReachItsPrograms) {
  // A worker in a folder closed to others: "nobody" could never start it.
  absl::StatusOr<v1::DaemonConfig> config = EffectiveConfig(Minimal(), RootMachineWithWorkerIn("closed", 0700));
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message().find("worker_path: worker_user nobody cannot execute"), 0u) << config.status();
  ConfigFlags flags = Minimal();
  flags.worker_user = "root";
  EXPECT_TRUE(EffectiveConfig(flags, RootMachineWithWorkerIn("closed", 0700)).ok());
}

TEST(Config, SocketGroupAndWorkerLimits) {
  ExpectFieldError("socket_group", [](ConfigFlags& f) { f.socket_group = "no-such-group-torchscan"; });
  ExpectFieldError("limits.worker_cpu_time_s", [](ConfigFlags& f) { f.worker_cpu_time_s = -1; });
  ExpectFieldError("limits.worker_open_files", [](ConfigFlags& f) { f.worker_open_files = 3; });
  ConfigFlags flags = Minimal();
  flags.socket_group = "root";
  flags.worker_cpu_time_s = 600;
  flags.worker_open_files = 256;
  absl::StatusOr<v1::DaemonConfig> config = EffectiveConfig(flags, Machine());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->limits().worker_cpu_time_s(), 600);
}

TEST(Config, AdminGroupMustExist) {
  ExpectFieldError("admin_group", [](ConfigFlags& f) { f.admin_group = "no-such-group-torchscan"; });
  ConfigFlags flags = Minimal();
  flags.admin_group = "no-such-group-torchscan";
  const absl::Status missing = EffectiveConfig(flags, Machine()).status();
  EXPECT_NE(missing.message().find("groupadd no-such-group-torchscan"), std::string::npos) << missing;
  flags.admin_group = "root";
  absl::StatusOr<v1::DaemonConfig> config = EffectiveConfig(flags, Machine());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->admin_group(), "root");
}

TEST(Config, WorkerAndRssChildAreFoundInTheBazelLayoutAndStaleCopiesBesideAreNot) {
  const std::string root = TempDir() + "/layout";
  ::mkdir(root.c_str(), 0755);
  for (const char* dir : {"/daemon", "/worker", "/passes"}) ::mkdir((root + dir).c_str(), 0755);
  // Also stale copies where an older build put them (beside torchscand and the worker): never chosen.
  for (const char* file : {"/worker/torchscan-worker", "/passes/torchscan_rss_child", "/daemon/torchscan-worker",
                           "/worker/torchscan_rss_child"}) {
    std::ofstream(root + file) << "#!/bin/sh\n";
    ::chmod((root + file).c_str(), 0755);
  }
  MachineFacts machine = Machine();
  machine.executable_dir = root + "/daemon";
  absl::StatusOr<v1::DaemonConfig> config = EffectiveConfig(Minimal(), machine);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->worker_path(), root + "/worker/torchscan-worker");
  EXPECT_EQ(config->rss_child_path(), root + "/passes/torchscan_rss_child");
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
