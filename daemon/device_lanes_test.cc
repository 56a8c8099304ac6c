// A daemon offering the CPU and two GPUs runs a job per GPU at once, a CPU job alone, and
// pins each GPU job's worker to its GPU: the Daemon in-process with fake_worker (its mode is
// the job's label), real worker processes, no GPU needed (the fake worker opens no device; it
// writes what it was given).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "daemon/daemon.h"

namespace torchscan::daemon {
namespace {

namespace fs = std::filesystem;

const Caller kTester{"tester", false};

std::string Dir(const std::string& name) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

v1::DaemonConfig Config(const std::string& dir) {
  v1::DaemonConfig config;
  config.set_state_dir(dir + "/state");
  for (const char* device : {"cpu", "cuda:0", "cuda:1"}) config.add_devices(device);
  config.set_default_intra_op_threads(1);
  config.set_default_inter_op_threads(1);
  config.mutable_limits()->set_max_queue_length(10);
  config.mutable_limits()->set_max_queued_per_user(10);
  config.mutable_limits()->set_job_wall_time_s(120);
  config.mutable_limits()->set_max_upload_bytes(1 << 20);
  config.set_worker_path(std::string(std::getenv("TEST_SRCDIR")) + "/torchscan/daemon/fake_worker");
  return config;
}

std::string Submit(Daemon& daemon, const std::string& device, const std::string& mode) {
  v1::SubmitRequest request;
  request.mutable_spec()->set_label(mode);
  v1::WorkloadSpec* w = request.mutable_spec()->mutable_measure()->mutable_workload();
  w->mutable_model()->set_builtin(v1::ModelSpec::linear);
  w->set_device(device);
  absl::StatusOr<v1::Job> job = daemon.Submit(request, "tester");
  EXPECT_TRUE(job.ok()) << job.status();
  return job.ok() ? job->id() : "";
}

v1::Job Get(Daemon& daemon, const std::string& id) {
  v1::JobRequest request;
  request.set_id(id);
  return *daemon.GetJob(request, kTester);
}

// Polls until `done` (60 s at most: the suite runs with both cores busy).
template <typename Done>
bool Eventually(Done done) {
  for (int i = 0; i < 6000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

bool InState(Daemon& daemon, const std::string& id, v1::Job::State state) { return Get(daemon, id).state() == state; }

std::map<std::string, v1::DeviceLane> Lanes(Daemon& daemon) {
  std::map<std::string, v1::DeviceLane> lanes;
  const absl::StatusOr<v1::DaemonInfo> info = daemon.Info(v1::InfoRequest(), kTester);
  EXPECT_TRUE(info.ok()) << info.status();
  if (!info.ok()) return lanes;
  for (const v1::DeviceLane& lane : info->devices()) lanes[lane.device()] = lane;
  return lanes;
}

TEST(DeviceLanes, JobsOnTwoGpusRunAtOnceAndACpuJobRunsAlone) {
  const std::string dir = Dir("lanes");
  auto daemon = *Daemon::Open(Config(dir));
  daemon->Start();
  const std::string release = dir + "/release-g0", release_cpu = dir + "/release-cpu", release_g1 = dir + "/release-g1";
  const std::string g0 = Submit(*daemon, "cuda:0", "ok wait=" + release);
  const std::string cpu = Submit(*daemon, "cpu", "ok wait=" + release_cpu);
  const std::string g1 = Submit(*daemon, "cuda:1", "ok wait=" + release_g1);
  const std::string g0_after = Submit(*daemon, "cuda:0", "ok");

  // g0 starts; g1 came after the CPU job, which holds cuda:1 too: it does not overtake it.
  ASSERT_TRUE(Eventually([&] { return InState(*daemon, g0, v1::Job::running); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(Get(*daemon, cpu).state(), v1::Job::queued);
  EXPECT_EQ(Get(*daemon, cpu).queue_position(), 1);
  EXPECT_EQ(Get(*daemon, g1).state(), v1::Job::queued);
  EXPECT_EQ(Get(*daemon, g1).queue_position(), 2);  // behind the CPU job, on its GPU
  std::map<std::string, v1::DeviceLane> lanes = Lanes(*daemon);
  EXPECT_EQ(lanes["cuda:0"].state(), "running job " + g0);
  EXPECT_EQ(lanes["cuda:1"].state(), "idle");
  EXPECT_EQ(lanes["cpu"].queued(), 1);
  EXPECT_EQ(lanes["cuda:1"].queued(), 2);
  EXPECT_EQ(lanes["cuda:1"].pinned(), "CUDA_VISIBLE_DEVICES=1");

  // g0 ends: the CPU job runs alone, holding both GPUs.
  std::ofstream(release) << "go";
  ASSERT_TRUE(Eventually([&] { return InState(*daemon, cpu, v1::Job::running); }));
  EXPECT_EQ(Get(*daemon, g0).state(), v1::Job::succeeded);
  lanes = Lanes(*daemon);
  EXPECT_EQ(lanes["cpu"].state(), "running job " + cpu);
  EXPECT_EQ(lanes["cuda:1"].state(), "held by job " + cpu);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(Get(*daemon, g1).state(), v1::Job::queued);
  EXPECT_EQ(Get(*daemon, g0_after).state(), v1::Job::queued);

  // The CPU job ends: the two GPU jobs run at once, one per GPU: g0_after runs and ends on
  // cuda:0 while g1 still runs on cuda:1.
  std::ofstream(release_cpu) << "go";
  ASSERT_TRUE(Eventually([&] { return InState(*daemon, g1, v1::Job::running); }));
  ASSERT_TRUE(Eventually([&] { return InState(*daemon, g0_after, v1::Job::succeeded); }));
  EXPECT_EQ(Get(*daemon, g1).state(), v1::Job::running);
  std::ofstream(release_g1) << "go";
  ASSERT_TRUE(Eventually([&] { return InState(*daemon, g1, v1::Job::succeeded); }));
  daemon->Shutdown("test over");
}

TEST(DeviceLanes, AGpuJobsWorkerSeesOnlyItsGpu) {
  const std::string dir = Dir("pins");
  auto daemon = *Daemon::Open(Config(dir));
  daemon->Start();
  const std::string pins = dir + "/pins.txt";
  const std::string on_gpu = Submit(*daemon, "cuda:1", "ok pin=" + pins);
  const std::string on_cpu = Submit(*daemon, "cpu", "ok pin=" + pins);
  ASSERT_TRUE(Eventually([&] { return InState(*daemon, on_cpu, v1::Job::succeeded); }));
  EXPECT_EQ(Get(*daemon, on_gpu).state(), v1::Job::succeeded);
  EXPECT_EQ(Get(*daemon, on_gpu).worker(), "warm spare");  // cuda:1's lane's own spare, pinned as its jobs are
  std::ifstream in(pins);
  std::map<std::string, std::vector<std::string>> seen;  // job folder's name -> what its worker saw
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> words = absl::StrSplit(line, ' ');
    ASSERT_EQ(words.size(), 4u) << line;
    seen[fs::path(words[0]).filename().string()] = words;
  }
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[on_gpu][1], "1");  // CUDA_VISIBLE_DEVICES
  EXPECT_EQ(seen[on_gpu][2], "1");  // TORCHSCAN_PINNED_GPUS: the worker finds cuda:1 as its cuda:0
  const char* own = std::getenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(seen[on_cpu][1], own == nullptr ? "-" : own);  // a CPU job's worker: the daemon's view
  EXPECT_EQ(seen[on_cpu][2], "-");
  daemon->Shutdown("test over");
}

TEST(DeviceLanes, HistoryKeepsEachDevicesJobsApart) {
  const std::string dir = Dir("history");
  auto daemon = *Daemon::Open(Config(dir));
  daemon->Start();
  const std::string on_gpu = Submit(*daemon, "cuda:1", "ok");
  const std::string on_cpu = Submit(*daemon, "", "ok");
  ASSERT_TRUE(Eventually([&] { return InState(*daemon, on_cpu, v1::Job::succeeded); }));
  v1::HistoryRequest request;
  request.set_name("ok");
  EXPECT_EQ(daemon->History(request, kTester)->jobs_size(), 2);
  request.set_device("cuda:1");
  absl::StatusOr<v1::HistoryResponse> gpu = daemon->History(request, kTester);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  ASSERT_EQ(gpu->jobs_size(), 1);
  EXPECT_EQ(gpu->jobs(0).id(), on_gpu);
  request.set_device("cpu");
  ASSERT_EQ(daemon->History(request, kTester)->jobs_size(), 1);
  EXPECT_EQ(daemon->History(request, kTester)->jobs(0).id(), on_cpu);
  request.set_device("cuda:0");
  EXPECT_EQ(daemon->History(request, kTester)->jobs_size(), 0);
  request.set_device("tpu");
  const absl::Status bad = daemon->History(request, kTester).status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(bad.message(), "device: ")) << bad;
  daemon->Shutdown("test over");
}

}  // namespace
}  // namespace torchscan::daemon
