// End-to-end: the warm spare worker (daemon/spare_slot.h) of a real torchscand with the real
// torchscan-worker, driven by the real client. A spare runs the next job (no LibTorch load
// phase; idle, it has started no thread pool), --no-spare-worker makes every job cold and says so, a spare killed while
// idle costs no job, cancel kills the spare running the job, and stopping torchscand (SIGTERM or kill -9) leaves no
// process of the spare's group. No timing verdict is asserted.
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "io/proto_json.h"
#include "proto/service.pb.h"
#include "report/report_json.h"
#include "tests/descendants.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"
#include "tests/e2e_timeline.h"

namespace torchscan::e2e {
namespace {

const std::vector<std::string> kQuickMeasure = {"measure", "--model", "linear", "--min-run-time", "0.02"};
const std::vector<std::string> kLongMeasure = {"measure", "--model", "linear", "--min-run-time", "120"};

v1::DaemonInfo Info(const TestDaemon& d) {
  const CommandResult r = d.Client({"--json", "info"});
  v1::DaemonInfo info;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(ParseJsonStrict(r.out, "info", &info).ok()) << r.out;
  return info;
}

// The spare's pid once the daemon has one other than `not_this` that has loaded (30 s at
// most; 0 if none).
int SparePid(const TestDaemon& d, int not_this = 0) {
  for (int i = 0; i < 300; ++i) {
    const v1::DaemonInfo info = Info(d);
    const int pid = info.spare_worker_pid();
    if (pid != 0 && pid != not_this && info.spare_worker_ready()) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return 0;
}

v1::Job RunQuick(const TestDaemon& d) {
  const CommandResult r = d.Client(kQuickMeasure);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return ShowJob(d, SubmittedId(r.err));
}

TEST(SpareWorkerEndToEnd, TheNextJobRunsOnTheSpareWithoutLoadingLibTorch) {
  // One CPU: OpenBLAS, which starts its own pool when it loads (sized from the CPUs it may
  // use, for a cold worker alike), then starts none, so the spare's threads are only its own.
  TestDaemon d(TempDir("spare_used"), {"--cpu-set", "0"});
  const std::string out = TempDir("spare_used_out");
  RunQuick(d);  // its end starts the next spare
  const int spare = SparePid(d);
  ASSERT_NE(spare, 0);
  EXPECT_GT(Info(d).spare_worker_rss_bytes(), 0);
  // Loaded but idle: one thread, no LibTorch pool started (the job's thread counts are
  // applied after the handoff; worker_settings_end_to_end_test reads them back).
  EXPECT_TRUE(absl::StrContains(Slurp("/proc/" + std::to_string(spare) + "/status"), "\nThreads:\t1\n"));
  const CommandResult r = d.Client(With(kQuickMeasure, {"--output", out}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const v1::Job job = ShowJob(d, SubmittedId(r.err));
  EXPECT_EQ(job.worker(), "warm spare");
  EXPECT_TRUE(Spans(job.timeline(), "LibTorch load").empty());
  EXPECT_EQ(Spans(job.timeline(), "worker start (warm spare)").size(), 1u)
      << ::testing::PrintToString(PhaseNames(job.timeline()));
  EXPECT_TRUE(GroupGone(spare));  // used once
  // The record, the evidence and its page say so.
  const CommandResult shown = d.Client({"jobs", "show", job.id()});
  EXPECT_TRUE(absl::StrContains(shown.out, "\n  worker: warm spare\n")) << shown.out;
  EXPECT_TRUE(absl::StrContains(shown.out, "\n    worker start (warm spare) ")) << shown.out;
  absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(out + "/report.json");
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(PhaseNames(report->job_timeline()), PhaseNames(job.timeline()));
  EXPECT_TRUE(absl::StrContains(Slurp(out + "/report.html"), "worker start (warm spare)"));
}

// A spare starts as many RSS children beside itself as the last job used, waiting for their
// trials (passes/peak_rss.h RssTrial::LaunchWaiting): after a job without rss none, after a
// comparison with --rss two, which the next such comparison hands its two trials to and gets
// both figures. The children are the spare's: none outlives it.
TEST(SpareWorkerEndToEnd, AnRssComparisonOnTheSpareGetsBothFigures) {
  TestDaemon d(TempDir("spare_rss"));
  RunQuick(d);
  const int plain = SparePid(d);
  ASSERT_NE(plain, 0);
  EXPECT_EQ(WaitForChild(plain, "torchscan_rss_child", 1), 0) << "no job asked for RSS: no waiting RSS child";
  const std::vector<std::string> compare = {"compare",        "--model", "linear",   "--no-check", "--rss",
                                            "--min-run-time", "0.02",    "--rounds", "1"};
  ASSERT_EQ(d.Client(compare).exit_code, 0);
  const int spare = SparePid(d, plain);
  ASSERT_NE(spare, 0);
  EXPECT_GT(WaitForChild(spare, "torchscan_rss_child", 10), 0) << "the spare's waiting RSS children";
  const std::string out = TempDir("spare_rss_out");
  const CommandResult r = d.Client(With(compare, {"--output", out}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const v1::Job job = ShowJob(d, SubmittedId(r.err));
  EXPECT_EQ(job.worker(), "warm spare");
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  for (const v1::BenchmarkReport* run : {&c->before(), &c->after()}) {
    const v1::MetricResult* rss = nullptr;
    for (const v1::MetricResult& m : run->totals())
      if (m.name() == "peak_rss_bytes") rss = &m;
    ASSERT_NE(rss, nullptr) << run->name();
    EXPECT_TRUE(rss->has_value()) << rss->DebugString();
    EXPECT_GT(rss->value(), 10.0 * (1 << 20));
  }
  EXPECT_TRUE(GroupGone(spare));
}

TEST(SpareWorkerEndToEnd, WithoutTheSpareEveryJobIsColdAndSaysWhy) {
  TestDaemon d(TempDir("spare_off"), {"--no-spare-worker"});
  const v1::Job job = RunQuick(d);
  EXPECT_EQ(job.worker(), "cold: spare worker off (no_spare_worker)");
  EXPECT_EQ(Spans(job.timeline(), "LibTorch load").size(), 1u);
  EXPECT_EQ(Spans(job.timeline(), "worker start (cold: spare worker off (no_spare_worker))").size(), 1u);
  EXPECT_EQ(Info(d).spare_worker_pid(), 0);
  EXPECT_TRUE(absl::StrContains(d.Client({"info"}).out, "  spare     none (no_spare_worker)\n"));
}

TEST(SpareWorkerEndToEnd, ASpareKilledWhileIdleCostsNoJob) {
  TestDaemon d(TempDir("spare_killed"));
  const int spare = SparePid(d);
  ASSERT_NE(spare, 0);
  ASSERT_EQ(::kill(spare, SIGKILL), 0);
  const v1::Job job = RunQuick(d);
  EXPECT_EQ(job.state(), v1::Job::succeeded) << job.error();
  // The job saw it dead and went cold, or the daemon's idle check had replaced it already,
  // or (the kill not yet visible when the job came) the spare died as it was handed the job,
  // which then ran on a cold worker.
  if (job.worker() != "warm spare") {
    EXPECT_TRUE(job.worker() == "cold: the spare worker ended while idle: worker killed by signal 9 (SIGKILL)" ||
                job.worker() ==
                    "cold: the spare worker ended before it began the job: worker killed by signal 9 (SIGKILL)")
        << job.worker();
  }
  EXPECT_NE(SparePid(d, spare), 0);  // replaced
}

TEST(SpareWorkerEndToEnd, CancelKillsTheSpareRunningTheJob) {
  TestDaemon d(TempDir("spare_cancel"));
  const int spare = SparePid(d);
  ASSERT_NE(spare, 0);
  std::future<CommandResult> client = InBackground(d, kLongMeasure);
  const v1::Job running = WaitForRunningJob(d);
  ASSERT_EQ(running.worker_pid(), spare);
  WaitForPhase(d, running.id(), "timing");
  const CommandResult cancel = d.Client({"jobs", "cancel", running.id()});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_EQ(ShowJob(d, running.id()).state(), v1::Job::cancelled);
  EXPECT_TRUE(GroupGone(spare));
  client.get();
}

TEST(SpareWorkerEndToEnd, StoppingTorchscandLeavesNoSpareBehind) {
  TestDaemon stopped(TempDir("spare_sigterm"));
  const int spare = SparePid(stopped);
  ASSERT_NE(spare, 0);
  ASSERT_EQ(::kill(stopped.pid(), SIGTERM), 0);
  // Its stop waits up to 2 s for gRPC and up to 10 s for the spare's group: 30 s under load.
  for (int i = 0; i < 3000 && stopped.Running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(stopped.Running());
  EXPECT_TRUE(GroupGone(spare));

  TestDaemon killed(TempDir("spare_kill9"));
  const int orphan = SparePid(killed);
  ASSERT_NE(orphan, 0);
  killed.Kill9();
  EXPECT_TRUE(GroupGone(orphan));  // PR_SET_PDEATHSIG: the spare dies with torchscand
}

}  // namespace
}  // namespace torchscan::e2e
