#include "daemon/pinned_launch.h"

#include <gtest/gtest.h>

namespace torchscan::daemon {
namespace {

using Names = std::vector<std::string>;
using Cpus = std::vector<int>;

// Two NUMA nodes of 4 CPUs: cuda:0 near 0-3, cuda:1 near 4-7; cuda:2's is unknown.
std::string Near(int gpu) { return gpu == 0 ? "0-3" : gpu == 1 ? "4-7" : ""; }
Names Pin(const std::vector<int>& gpus) {
  Names env;
  for (int gpu : gpus) env.push_back("GPU=" + std::to_string(gpu));
  return env;
}

JobRunOptions Pinned(const JobRunOptions& base, const Names& claims) {
  return PinnedRunOptions(base, claims, {0, 1, 2, 3, 4, 5, 6, 7}, Near, Pin);
}

TEST(PinnedRunOptions, ACpuJobKeepsTheDaemonsLaunch) {
  JobRunOptions base;
  base.worker.cpus = {1, 2};
  const JobRunOptions cpu = Pinned(base, {"cpu", "cuda:0", "cuda:1"});
  EXPECT_EQ(cpu.worker.cpus, (Cpus{1, 2}));
  EXPECT_TRUE(cpu.worker.environment.empty());
  EXPECT_EQ(LaunchPin(cpu), "");
}

TEST(PinnedRunOptions, AGpuJobSeesItsGpuAndRunsNearIt) {
  const JobRunOptions one = Pinned(JobRunOptions(), {"cuda:1"});
  EXPECT_EQ(one.worker.environment, (Names{"GPU=1"}));
  EXPECT_EQ(one.worker.cpus, (Cpus{4, 5, 6, 7}));
  EXPECT_EQ(LaunchCpus(one), "4-7");
  const JobRunOptions two = Pinned(JobRunOptions(), {"cuda:0", "cuda:1"});
  EXPECT_EQ(two.worker.environment, (Names{"GPU=0", "GPU=1"}));
  EXPECT_EQ(two.worker.cpus, (Cpus{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(PinnedRunOptions, NearCpusStayWithinTheDaemonsCpuSet) {
  JobRunOptions base;
  base.worker.cpus = {2, 3, 4};
  EXPECT_EQ(Pinned(base, {"cuda:0"}).worker.cpus, (Cpus{2, 3}));
  base.worker.cpus = {0};
  EXPECT_EQ(Pinned(base, {"cuda:1"}).worker.cpus, (Cpus{0}));  // none near: the daemon's set
  EXPECT_EQ(Pinned(base, {"cuda:2"}).worker.cpus, (Cpus{0}));  // unknown: the daemon's set
  EXPECT_EQ(Pinned(base, {"cuda:2"}).worker.environment, (Names{"GPU=2"}));
}

}  // namespace
}  // namespace torchscan::daemon
