#include "daemon/slurm_commands.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace torchscan::daemon {
namespace {

TEST(SlurmCommandsTest, SbatchArgsAskForOneExclusiveNodeAndRunTheNodeJobUnderSrun) {
  v1::SlurmConfig config;
  config.set_partition("bench");
  config.set_time_limit("65");
  config.set_gres("gpu:1");
  const std::vector<std::string> args = SbatchArgs(
      config, {"job-000007", "/s/slurm/job-000007", "node3", "/opt/ts bin/torchscan-node-job", "/s/cfg.json"});
  auto has = [&](const std::string& arg) { return std::find(args.begin(), args.end(), arg) != args.end(); };
  for (const char* arg : {"--parsable", "--exclusive", "--nodes=1", "--ntasks=1", "--no-requeue", "--partition=bench",
                          "--time=65", "--gres=gpu:1", "--nodelist=node3", "--job-name=torchscan-job-000007",
                          "--chdir=/s/slurm/job-000007", "--output=/s/slurm/job-000007/node.log"})
    EXPECT_TRUE(has(arg)) << arg;
  EXPECT_FALSE(
      std::any_of(args.begin(), args.end(), [](const std::string& a) { return a.rfind("--account", 0) == 0; }));
  EXPECT_EQ(args.back(),
            "--wrap=exec srun --unbuffered --exclusive --nodes=1 --ntasks=1 --cpus-per-task=\"$SLURM_CPUS_ON_NODE\" "
            "'/opt/ts bin/torchscan-node-job' --config '/s/cfg.json' --job 'job-000007'");
}

// A GPU job asks Slurm for the GPUs its cuda:N needs, in place of the configuration's gpu gres
// (other gres entries stay); a CPU job keeps the configuration's.
TEST(SlurmCommandsTest, AGpuJobAsksForItsGpus) {
  v1::SlurmConfig config;
  config.set_partition("bench");
  config.set_time_limit("65");
  const auto gres_of = [&](int gpus) {
    SbatchRequest request{"job-000001", "/s/slurm/job-000001", "", "/bin/node-job", "/s/cfg.json", gpus};
    for (const std::string& arg : SbatchArgs(config, request))
      if (arg.rfind("--gres=", 0) == 0) return arg;
    return std::string("none");
  };
  EXPECT_EQ(gres_of(0), "none");
  EXPECT_EQ(gres_of(1), "--gres=gpu:1");
  config.set_gres("gpu:a100:1,nvme:1");
  EXPECT_EQ(gres_of(0), "--gres=gpu:a100:1,nvme:1");
  EXPECT_EQ(gres_of(2), "--gres=nvme:1,gpu:2");
}

TEST(SlurmCommandsTest, ShellQuoteSurvivesQuotes) { EXPECT_EQ(ShellQuote("a'b"), "'a'\\''b'"); }

TEST(SlurmCommandsTest, ParsesSbatchIds) {
  EXPECT_EQ(*ParseSbatchId("123\n"), "123");
  EXPECT_EQ(*ParseSbatchId("45;cluster\n"), "45");
  EXPECT_FALSE(ParseSbatchId("").ok());
  EXPECT_FALSE(ParseSbatchId("Submitted batch job 5").ok());
}

TEST(SlurmCommandsTest, ParsesSqueueLinesAndSkipsOthers) {
  const auto jobs = ParseSqueue(
      "12|RUNNING|vm|None|torchscan-job-000001|/s/slurm/job-000001\n"
      "13|PENDING|(null)|Resources|torchscan-job-000002|/s/slurm/job-000002\n"
      "garbage\n"
      "14|NODE_FAIL|vm|NodeDown|other|/home/x\n");
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs.at("12").state, "RUNNING");
  EXPECT_EQ(jobs.at("12").node, "vm");
  EXPECT_EQ(jobs.at("13").reason, "Resources");
  EXPECT_EQ(jobs.at("13").node, "");  // squeue's "(null)": no node yet
  EXPECT_EQ(jobs.at("13").folder, "/s/slurm/job-000002");
  EXPECT_EQ(jobs.at("14").name, "other");
}

TEST(SlurmCommandsTest, FinalStates) {
  for (const char* live : {"PENDING", "RUNNING", "COMPLETING", "CONFIGURING"}) EXPECT_FALSE(IsSlurmStateFinal(live));
  for (const char* done : {"COMPLETED", "FAILED", "CANCELLED", "NODE_FAIL", "TIMEOUT", "OUT_OF_MEMORY"})
    EXPECT_TRUE(IsSlurmStateFinal(done));
}

TEST(SlurmCommandsTest, ParsesSinfoNodesWithReasons) {
  std::map<std::string, std::string> reasons;
  const auto nodes = ParseSinfo(
      "vm|idle|2|(null)|none\n"
      "gpu1|down*|64|a100,nvlink|test reason\n"
      "vm|idle|2|(null)|none\n",
      &reasons);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].name(), "vm");
  EXPECT_EQ(nodes[0].features(), "");
  EXPECT_EQ(nodes[1].state(), "down");
  EXPECT_EQ(nodes[1].cpus(), 64);
  EXPECT_EQ(nodes[1].features(), "a100,nvlink");
  EXPECT_EQ(reasons.at("gpu1"), "test reason");
  EXPECT_EQ(reasons.count("vm"), 0u);
}

TEST(SlurmCommandsTest, MissingProgramIsNotFoundNamingTheInstall) {
  absl::StatusOr<std::string> out = RunSlurm("no-such-slurm-command-xyz", {});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(out.status().message().find("apt-get install slurm-client"), std::string::npos);
}

TEST(SlurmCommandsTest, RunSlurmReturnsStdoutAndCarriesStderrOnFailure) {
  EXPECT_EQ(*RunSlurm("echo", {"a", "b"}), "a b\n");
  absl::StatusOr<std::string> failed = RunSlurm("sh", {"-c", "echo 'Unable to contact slurm controller' >&2; exit 1"});
  ASSERT_EQ(failed.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(failed.status().message().find("start slurmctld"), std::string::npos);
  failed = RunSlurm("sh", {"-c", "echo 'Invalid partition' >&2; exit 1"});
  ASSERT_EQ(failed.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(failed.status().message().find("Invalid partition"), std::string::npos);
  EXPECT_EQ(RunSlurm("sleep", {"5"}, 0.2).status().code(), absl::StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace torchscan::daemon
