// `torchscan-client measure --threads N` and `torchscand --cpu-set CPU` reach the real worker:
// read back from the worker process itself while it times (/proc/<pid>/status and each
// thread's /proc/<pid>/task/<tid>/status), and from the report it wrote.
//
// Where each setting lives: --cpu-set is the daemon's (DaemonConfig.cpu_set), applied by the
// launcher with sched_setaffinity before the worker is exec'd (daemon/worker_launcher.h), so
// every thread the worker ever starts inherits it; --threads is the job's intra_op_threads,
// applied by the worker (at::set_num_threads) before the model is built.
//
// The workload is tests/make_work_module's tanh(x @ w) on a 16384x64 input: its tanh over 1M
// elements is split across LibTorch's intra-op threads, so a second intra-op thread really
// starts during timing. The worker is found by the job's worker_pid once the daemon reports
// the timing phase and sampled for kSampleS, each sample with its wall time; only the samples
// that fall inside the timing phase of the worker's own timeline (the report's) count, so a
// loaded machine, where the client's calls lag, may give fewer samples but never ones from
// another phase (min_run_time 2 s leaves a wide margin over kSampleS).
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/time/time.h"
#include "proto/service.pb.h"
#include "report/report_json.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"
#include "tests/e2e_timeline.h"

namespace torchscan::e2e {
namespace {

constexpr double kSampleS = 1;

// The value of `key` ("Threads", "Cpus_allowed_list") in a /proc status file; "" if absent.
std::string StatusField(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ":", 0) == 0) {
      const size_t value = line.find_first_not_of(" \t", key.size() + 1);
      return value == std::string::npos ? "" : line.substr(value);
    }
  return "";
}

// One look at the worker: when, its thread count, and the Cpus_allowed_list of the process
// and of each thread.
struct Sample {
  std::chrono::system_clock::time_point at;
  int threads = 0;
  std::set<std::string> cpu_lists;
};

// What the samples taken during timing saw.
struct WorkerSample {
  int max_threads = 0;              // the most threads seen in Threads:
  std::set<std::string> cpu_lists;  // every Cpus_allowed_list seen, of the process and each thread
  int samples = 0;
  std::string comm;  // the process's name
};

// Samples worker `pid` every 20 ms for kSampleS (until it ends).
std::vector<Sample> SampleWorker(int pid, std::string* comm) {
  std::vector<Sample> samples;
  const std::string proc = "/proc/" + std::to_string(pid);
  std::ifstream(proc + "/comm") >> *comm;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(kSampleS);
  while (std::chrono::steady_clock::now() < end) {
    Sample s;
    s.at = std::chrono::system_clock::now();
    const std::string threads = StatusField(proc + "/status", "Threads");
    if (threads.empty()) break;  // it ended
    s.threads = std::stoi(threads);
    s.cpu_lists.insert(StatusField(proc + "/status", "Cpus_allowed_list"));
    std::error_code ec;
    for (const auto& task : std::filesystem::directory_iterator(proc + "/task", ec))
      if (const std::string cpus = StatusField(task.path().string() + "/status", "Cpus_allowed_list"); !cpus.empty())
        s.cpu_lists.insert(cpus);
    samples.push_back(std::move(s));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return samples;
}

// The samples taken between the first timing span's start and the last one's end of the
// worker's own timeline (wall times: its started_at plus the spans' seconds).
WorkerSample DuringTiming(const std::vector<Sample>& samples, const v1::Timeline& timeline) {
  WorkerSample seen;
  absl::Time zero;
  std::string error;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, timeline.started_at(), &zero, &error))
      << timeline.started_at() << ": " << error;
  const std::vector<v1::PhaseSpan> timing = Spans(timeline, "timing");
  const auto from = absl::ToChronoTime(zero + absl::Seconds(FirstStart(timing)));
  const auto to = absl::ToChronoTime(zero + absl::Seconds(LastEnd(timing)));
  for (const Sample& s : samples) {
    if (s.at < from || s.at > to) continue;
    seen.max_threads = std::max(seen.max_threads, s.threads);
    seen.cpu_lists.insert(s.cpu_lists.begin(), s.cpu_lists.end());
    ++seen.samples;
  }
  return seen;
}

// The lowest CPU this test may run on (0 on an unrestricted machine).
int FirstAllowedCpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) return cpu;
  return 0;
}

struct Observed {
  WorkerSample worker;
  v1::BenchmarkReport report;
};

// Runs a measure job with --threads `threads` on `d`, samples its worker while it times.
Observed MeasureWithThreads(const TestDaemon& d, const std::string& module, int threads) {
  const std::string out = TempDir("out_threads_" + std::to_string(threads));
  std::future<CommandResult> client =
      InBackground(d, {"measure", "--torchscript", module, "--input", "16384x64", "--threads", std::to_string(threads),
                       "--min-run-time", "2", "--output", out});
  Observed seen;
  const v1::Job running = WaitForRunningJob(d);
  const v1::Job timing = WaitForPhase(d, running.id(), "timing");
  EXPECT_EQ(timing.worker_pid(), running.worker_pid());
  std::vector<Sample> samples;
  if (timing.worker_pid() > 0) samples = SampleWorker(timing.worker_pid(), &seen.worker.comm);
  const CommandResult r = client.get();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(out + "/report.json");
  EXPECT_TRUE(report.ok()) << report.status();
  if (report.ok()) seen.report = *report;
  const std::string comm = seen.worker.comm;
  seen.worker = DuringTiming(samples, seen.report.timeline());
  seen.worker.comm = comm;
  std::printf("--threads %d: %zu samples, %d of them during timing\n", threads, samples.size(), seen.worker.samples);
  std::printf("--threads %d: worker %s, %d samples, at most %d threads, Cpus_allowed_list {", threads,
              seen.worker.comm.c_str(), seen.worker.samples, seen.worker.max_threads);
  for (const std::string& cpus : seen.worker.cpu_lists) std::printf(" %s", cpus.c_str());
  std::printf(" }; report intra_op %d, cpu_affinity %s\n", seen.report.settings().threads().intra_op(),
              seen.report.environment().cpu_affinity().c_str());
  return seen;
}

TEST(WorkerSettingsEndToEnd, ThreadsAndCpuSetReachTheWorkerWhileItTimesAndTheReport) {
  const std::string dir = TempDir("module");
  ASSERT_EQ(e2e::Run(Runfile("tests/make_work_module"), {dir}).exit_code, 0);
  const std::string cpu = std::to_string(FirstAllowedCpu());
  TestDaemon d(TempDir("state"), {"--cpu-set", cpu});

  const Observed one = MeasureWithThreads(d, dir + "/work.pt", 1);
  const Observed two = MeasureWithThreads(d, dir + "/work.pt", 2);
  for (const Observed* o : {&one, &two}) {
    EXPECT_EQ(o->worker.comm, "torchscan-worke");  // the worker itself (comm keeps 15 characters)
    EXPECT_GE(o->worker.samples, 5);
    // The process and every one of its threads, including those started during timing.
    EXPECT_EQ(o->worker.cpu_lists, std::set<std::string>{cpu});
    EXPECT_EQ(o->report.environment().cpu_affinity(), cpu);
  }
  EXPECT_EQ(one.report.settings().threads().intra_op(), 1);
  EXPECT_EQ(two.report.settings().threads().intra_op(), 2);
  // A second intra-op thread exists while timing with --threads 2, and not with --threads 1.
  // at::set_num_threads(2) sizes two pools, OpenMP's team and the pthreadpool, and the
  // intra-op count sizes OpenBLAS's pool too (experiment/torch_measure.h), each one thread beyond
  // the caller: so one to three more threads than the same job with --threads 1.
  EXPECT_GE(two.worker.max_threads, 2);
  EXPECT_GE(two.worker.max_threads - one.worker.max_threads, 1);
  EXPECT_LE(two.worker.max_threads - one.worker.max_threads, 3);
}

}  // namespace
}  // namespace torchscan::e2e
