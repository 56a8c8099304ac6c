// End-to-end: a job with --rss on a cold worker (a real torchscand without a spare, the real
// torchscan-worker and torchscan_rss_child) starts its RSS children together with the worker
// (daemon/worker_launcher.h, WorkerLaunch.early_children), so that their LibTorch loads overlap
// the worker's: the children are the worker's own (its children, in its process group), start
// before its first progress line, have all ended before its first timed block, and die with
// the job when it is cancelled, or killed past its wall time, while the worker still loads,
// and with the worker when torchscand is killed (kill -9). A child killed before its trial
// leaves the RSS figure unknown with the reason, not a hang. No timing verdict is asserted.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "proto/service.pb.h"
#include "report/report_json.h"
#include "tests/descendants.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"
#include "tests/e2e_timeline.h"

namespace torchscan::e2e {
namespace {

const std::vector<std::string> kRssCompare = {"compare",        "--model", "linear",   "--no-check", "--rss",
                                              "--min-run-time", "0.02",    "--rounds", "1"};

// The kernel's start time of `pid` (/proc/PID/stat field 22) in seconds since boot; -1 when
// it cannot be read.
double StartedSinceBoot(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::stringstream text;
  text << in.rdbuf();
  const std::string stat = text.str();
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(stat.substr(close + 2));  // from field 3, the state
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i)
    if (i == 22) return std::stod(field) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  return -1;
}

// The worker of the one job running on `d` and its first RSS child, found in /proc: the
// worker as torchscand's child once it has exec'd (its name is torchscand's before), by which
// time its RSS children, forked before that exec, exist. No client round trip: on a loaded
// machine one can outlast a job killed after 0.3 s. 0 for what is not found within 30 s.
struct WorkerAndRssChild {
  pid_t worker = 0;
  pid_t child = 0;
};
WorkerAndRssChild FindWorkerAndRssChild(const TestDaemon& d) {
  WorkerAndRssChild found;
  found.worker = WaitForChild(d.pid(), "torchscan-worker", 30);
  if (found.worker > 0) found.child = WaitForChild(found.worker, "torchscan_rss_child", 30);
  return found;
}

// The id of the one job `d` holds.
std::string OnlyJobId(const TestDaemon& d) {
  const std::vector<v1::Job> jobs = ListJobs(d);
  EXPECT_EQ(jobs.size(), 1u);
  return jobs.empty() ? "" : jobs[0].id();
}

const v1::MetricResult* PeakRss(const v1::BenchmarkReport& run) {
  for (const v1::MetricResult& m : run.totals())
    if (m.name() == "peak_rss_bytes") return &m;
  return nullptr;
}

TEST(ColdRssEndToEnd, TheRssChildrenStartWithTheWorkerAndEndBeforeTiming) {
  TestDaemon d(TempDir("cold_rss"), {"--no-spare-worker"});
  const std::string out = TempDir("cold_rss_out");
  std::future<CommandResult> client = InBackground(d, With(kRssCompare, {"--output", out}));
  const auto [worker, child] = FindWorkerAndRssChild(d);
  ASSERT_GT(worker, 0) << "no worker appeared";
  ASSERT_GT(child, 0) << "no RSS child of worker " << worker;
  const double worker_started = StartedSinceBoot(worker), child_started = StartedSinceBoot(child);
  EXPECT_EQ(::getpgid(child), worker) << "in the worker's process group";

  const CommandResult r = client.get();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const v1::Job job = ShowJob(d, OnlyJobId(d));
  EXPECT_EQ(job.worker(), "cold: spare worker off (no_spare_worker)");
  const v1::Timeline& t = job.timeline();
  std::printf("%s\n", ::testing::PrintToString(PhaseNames(t)).c_str());
  const std::vector<v1::PhaseSpan> children = Spans(t, "rss children (2 started with the worker)");
  const std::vector<v1::PhaseSpan> load = Spans(t, "LibTorch load");
  ASSERT_EQ(children.size(), 1u);
  ASSERT_EQ(load.size(), 1u);
  EXPECT_TRUE(children[0].concurrent());
  // Started as the worker was: before its first progress line ("rss baseline", its first
  // phase after the load), and ended (as the daemon sees it) before the first timed block.
  // (Two callbacks of the launcher date the two spans: a loaded machine can part them by
  // some ms; the kernel's start times below are the exact check.)
  EXPECT_LE(children[0].start_s(), load[0].start_s() + 0.05);
  EXPECT_LT(children[0].start_s(), FirstStart(Spans(t, "rss baseline")));
  EXPECT_LE(children[0].end_s(), FirstStart(Spans(t, "timing")));
  // The kernel agrees: the child started with the worker, not after its LibTorch load (the
  // old order); start times have one clock tick of resolution.
  const double load_s = load[0].end_s() - load[0].start_s();
  EXPECT_LT(child_started - worker_started, load_s / 2 + 0.02)
      << "child started " << child_started - worker_started << " s after the worker; its load took " << load_s;

  // Both figures; the worker's own timeline has every child ended before timing.
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");  // strict: timelines validate
  ASSERT_TRUE(c.ok()) << c.status();
  for (const v1::BenchmarkReport* run : {&c->before(), &c->after()}) {
    const v1::MetricResult* rss = PeakRss(*run);
    ASSERT_NE(rss, nullptr) << run->name();
    EXPECT_TRUE(rss->has_value()) << rss->DebugString();
    EXPECT_GT(rss->value(), 10.0 * (1 << 20));
  }
  EXPECT_LE(LastEnd(Spans(c->timeline(), "rss")), FirstStart(Spans(c->timeline(), "timing")));
  EXPECT_TRUE(GroupGone(worker));
}

// Cancelled while the worker still loads LibTorch: its RSS children, loading beside it, die
// with it (no orphan), and the next job runs normally.
TEST(ColdRssEndToEnd, CancelDuringTheLoadKillsTheRssChildren) {
  TestDaemon d(TempDir("cold_rss_cancel"), {"--no-spare-worker"});
  std::future<CommandResult> client = InBackground(d, kRssCompare);
  const auto [worker, child] = FindWorkerAndRssChild(d);
  ASSERT_GT(worker, 0);
  ASSERT_GT(child, 0);
  const std::string id = OnlyJobId(d);
  const CommandResult cancel = d.Client({"jobs", "cancel", id});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  const v1::Job cancelled = ShowJob(d, id);
  EXPECT_EQ(cancelled.state(), v1::Job::cancelled);
  std::printf("cancelled in: %s\n", ::testing::PrintToString(PhaseNames(cancelled.timeline())).c_str());
  EXPECT_TRUE(GroupGone(worker));
  EXPECT_FALSE(AliveNotZombie(child));
  client.get();
  EXPECT_EQ(d.Client(kRssCompare).exit_code, 0);
}

// Past the job's wall time while the worker still loads: the job fails and its RSS children
// are killed with the worker's process group.
TEST(ColdRssEndToEnd, AWallTimeKillDuringTheLoadKillsTheRssChildren) {
  TestDaemon d(TempDir("cold_rss_wall"), {"--no-spare-worker", "--job-wall-time", "0.3"});
  std::future<CommandResult> client = InBackground(d, kRssCompare);
  // Not WaitForRunningJob: its client round trips can miss a job that runs 0.3 s.
  const auto [worker, child] = FindWorkerAndRssChild(d);
  ASSERT_GT(worker, 0);
  client.get();
  const v1::Job failed = ShowJob(d, OnlyJobId(d));
  EXPECT_EQ(failed.state(), v1::Job::failed);
  EXPECT_TRUE(absl::StrContains(failed.error(), "exceeded job_wall_time_s 0.3")) << failed.error();
  EXPECT_TRUE(GroupGone(worker));
  if (child > 0) {
    EXPECT_FALSE(AliveNotZombie(child));
  }
}

// kill -9 of torchscand while the worker loads: the worker dies with it (its death signal),
// and its RSS children with the worker's main thread: the worker ends as the test's orphan,
// the RSS children as the test's too, or (sandboxed: the worker is process 1 of their PID
// namespace, whose end kills them) reaped there.
TEST(ColdRssEndToEnd, KillingTorchscandDuringTheLoadLeavesNoRssChild) {
  TestDaemon d(TempDir("cold_rss_kill9"), {"--no-spare-worker"});
  std::future<CommandResult> client = InBackground(d, kRssCompare);
  const auto [worker, child] = FindWorkerAndRssChild(d);
  ASSERT_GT(worker, 0);
  ASSERT_GT(child, 0);
  OrphanAdopter adopter;
  d.Kill9();
  const OrphanAdopter::End worker_end = OrphanAdopter::WaitForEnd(worker, 10);
  const OrphanAdopter::End child_end = OrphanAdopter::WaitForEnd(child, 10);
  EXPECT_EQ(worker_end.how, "killed by signal 9 (SIGKILL)") << "worker " << worker;
  EXPECT_TRUE(child_end.how == "killed by signal 9 (SIGKILL)" || child_end.how == "gone, reaped in its PID namespace")
      << "RSS child " << child << ": " << child_end.how;
  client.get();
}

// An RSS child killed before the worker could hand it its trial: the job still succeeds, its
// figure unknown with how the child ended.
TEST(ColdRssEndToEnd, AChildKilledBeforeItsTrialGivesAClearRssError) {
  TestDaemon d(TempDir("cold_rss_killed"), {"--no-spare-worker"});
  const std::string out = TempDir("cold_rss_killed_out");
  std::future<CommandResult> client =
      InBackground(d, {"measure", "--model", "linear", "--rss", "--min-run-time", "0.02", "--output", out});
  const pid_t child = FindWorkerAndRssChild(d).child;
  ASSERT_GT(child, 0);
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  const CommandResult r = client.get();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(out + "/report.json");
  ASSERT_TRUE(report.ok()) << report.status();
  const v1::MetricResult* rss = PeakRss(*report);
  ASSERT_NE(rss, nullptr);
  EXPECT_FALSE(rss->has_value());
  ASSERT_EQ(rss->diagnostics_size(), 1);
  // Killed before its trial (as a rule: the worker still loads), or, on a machine so fast that
  // the worker had handed it over, while it ran: either way the signal is named.
  EXPECT_TRUE(absl::StrContains(rss->diagnostics(0), "RSS child was killed by signal 9")) << rss->diagnostics(0);
  std::printf("RSS child killed: %s\n", rss->diagnostics(0).c_str());
}

}  // namespace
}  // namespace torchscan::e2e
