// End-to-end: real torchscand processes driven by the real torchscan-client, each test with
// its own daemon and state folder. Jobs use short timing (min-run-time 0.02 s).
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>
#include <tuple>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "proto/service.grpc.pb.h"
#include "proto/service.pb.h"
#include "report/report_json.h"
#include "tests/descendants.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"
#include "tests/job_process_witness.h"
#include "tests/label_rule.h"
#include "tests/overlap_verdict.h"

namespace torchscan::e2e {
namespace {

const std::vector<std::string> kQuickMeasure = {"measure", "--model", "linear", "--min-run-time", "0.02"};
const std::vector<std::string> kLongMeasure = {"measure", "--model", "linear", "--min-run-time", "120"};

// The History RPC, straight over gRPC (the client's `history` command is tested elsewhere).
v1::HistoryResponse History(const TestDaemon& d, const std::string& name) {
  std::unique_ptr<v1::TorchScan::Stub> stub =
      v1::TorchScan::NewStub(grpc::CreateChannel(d.address(), grpc::InsecureChannelCredentials()));
  v1::HistoryRequest request;
  request.set_name(name);
  v1::HistoryResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  const grpc::Status status = stub->History(&context, request, &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response;
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

TEST(DaemonEndToEnd, MeasureWritesReportAndPage) {
  TestDaemon d(TempDir("measure"));
  const std::string out = TempDir("measure_out");
  const CommandResult r = d.Client(With(kQuickMeasure, {"--output", out}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(out + "/report.json");
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GE(report->timing().blocks_size(), 10);
  EXPECT_TRUE(report->has_profile());
  EXPECT_EQ(report->work_unit(), "samples");
  EXPECT_TRUE(Exists(out + "/report.html"));
  EXPECT_NE(r.out.find("samples/s"), std::string::npos) << r.out;  // the terminal summary
}

const std::vector<std::string> kGuideCompare = {"compare", "--baseline-mode", "per_sample", "--rtol",
                                                "1e-4",    "--atol",          "1e-5"};

TEST(DaemonEndToEnd, CompareWithPassingCheckLabelsByTheGuideRule) {
  TestDaemon d(TempDir("compare_pass"));
  const std::string out = TempDir("compare_pass_out");
  const CommandResult r = d.Client(With(kGuideCompare, {"--min-run-time", "0.05", "--output", out}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->output_check().status(), v1::OutputCheck::passed);
  EXPECT_TRUE(LabelFollowsTheGuideRule(*c));
  EXPECT_TRUE(Exists(out + "/comparison.html"));
}

TEST(DaemonEndToEnd, CompareWithFailingCheckWithholdsDeltasAndLabel) {
  TestDaemon d(TempDir("compare_fail"));
  const std::string out = TempDir("compare_fail_out");
  const CommandResult r =
      d.Client({"compare", "--baseline-mode", "per_sample", "--min-run-time", "0.02", "--candidate-dtype", "bfloat16",
                "--rtol", "0", "--atol", "0", "--check-dtype", "float32", "--output", out});
  ASSERT_EQ(r.exit_code, 1) << r.err;  // the documented exit code of a failed check
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->output_check().status(), v1::OutputCheck::failed);
  // Failed by the tolerance (0) on values cast to float32, not by the dtype difference.
  EXPECT_NE(c->output_check().message().find("elements differ beyond rtol=0, atol=0"), std::string::npos)
      << c->output_check().message();
  EXPECT_EQ(c->latency_change(), v1::Comparison::unavailable);
  // At least the four timing metrics (latency_median, latency_iqr, latency_mean, throughput),
  // then each measured total: all listed, none with a number.
  ASSERT_GE(c->deltas_size(), 4);
  for (const v1::MetricDelta& delta : c->deltas()) EXPECT_FALSE(delta.known() || delta.has_delta()) << delta.name();
  // A precision change is a candidate change, listed, not an incompatibility.
  EXPECT_TRUE(c->compatibility().compatible());
  bool dtype_listed = false;
  for (const v1::SettingChange& s : c->changed_settings()) dtype_listed |= s.name() == "workload.dtype";
  EXPECT_TRUE(dtype_listed);
  // The check ran before timing too, failed there, and ended the job: neither run was timed.
  for (const v1::BenchmarkReport* run : {&c->before(), &c->after()}) {
    EXPECT_EQ(run->timing().blocks_size(), 0);
    ASSERT_GE(run->warnings_size(), 1);
    EXPECT_EQ(run->warnings(run->warnings_size() - 1).code(), "not_timed");
  }
  EXPECT_EQ(c->timeline().spans(c->timeline().spans_size() - 1).phase(), "check (before timing)");
}

// The same bfloat16 candidate, compared as float32 (so that the dtype alone fails nothing):
// the tolerance decides. Tight (the guide's 1e-4/1e-5) fails, loose (5 %) passes.
TEST(DaemonEndToEnd, ABfloat16CandidateFailsATightToleranceAndPassesALooseOne) {
  TestDaemon d(TempDir("bf16_tolerance"));
  for (const auto& [rtol, atol, exit_code, status, message] :
       std::vector<std::tuple<std::string, std::string, int, v1::OutputCheck::Status, std::string>>{
           {"1e-4", "1e-5", 1, v1::OutputCheck::failed, "elements differ beyond rtol=0.0001, atol=1e-05"},
           {"0.05", "0.05", 0, v1::OutputCheck::passed, "rtol=0.05, atol=0.05, compared as float32"}}) {
    const std::string out = TempDir("bf16_tolerance_" + rtol);
    const CommandResult r =
        d.Client({"compare", "--baseline-mode", "per_sample", "--min-run-time", "0.02", "--candidate-dtype", "bfloat16",
                  "--check-dtype", "float32", "--rtol", rtol, "--atol", atol, "--output", out});
    EXPECT_EQ(r.exit_code, exit_code) << "rtol " << rtol << ": " << r.err;
    absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->output_check().status(), status) << c->output_check().message();
    EXPECT_NE(c->output_check().message().find(message), std::string::npos) << c->output_check().message();
    EXPECT_EQ(c->output_check().message().find("dtypes differ"), std::string::npos) << c->output_check().message();
    std::printf("bfloat16 vs float32 at rtol %s, atol %s: %s\n", rtol.c_str(), atol.c_str(),
                c->output_check().message().c_str());
  }
}

TEST(DaemonEndToEnd, TorchScriptCheckModulesPassAndFail) {
  TestDaemon d(TempDir("script_check"));
  const std::string dir = TempDir("script_check_files");
  ASSERT_EQ(torchscan::e2e::Run(Runfile("tests/make_check_modules"), {dir}).exit_code, 0);
  for (const auto& [module, exit_code, status, message] :
       std::vector<std::tuple<std::string, int, v1::OutputCheck::Status, std::string>>{
           {"pass.pt", 0, v1::OutputCheck::passed, "the TorchScript check module passed"},
           {"assert.pt", 1, v1::OutputCheck::failed, "outputs differ on purpose"}}) {
    const std::string job = dir + "/" + module + ".json";
    std::ofstream(job) << R"({"compare": {"baseline": {"model": {"builtin": "linear"}, "execution_mode": "per_sample"},
                              "candidate": {"model": {"builtin": "linear"}},
                              "check": {"torchscript": {"path": ")"
                       << dir << "/" << module << R"("}}},
                              "options": {"min_run_time_s": 0.02, "skip_diagnostics": true}})";
    const std::string out = TempDir("script_check_out_" + module);
    const CommandResult r = d.Client({"compare", "--job", job, "--output", out});
    EXPECT_EQ(r.exit_code, exit_code) << module << ": " << r.err;
    absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->output_check().status(), status) << module;
    EXPECT_EQ(c->output_check().message(), message) << module;
  }
}

TEST(DaemonEndToEnd, AlternatingRoundsPoolBlocksAndKeepEachRound) {
  TestDaemon d(TempDir("rounds"));
  const std::string out = TempDir("rounds_out");
  const CommandResult r =
      d.Client(With(kGuideCompare, {"--rounds", "2", "--min-run-time", "0.02", "--fixed-length", "--output", out}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->before().settings().order(), "alternating rounds: baseline, candidate, candidate, baseline");
  for (const v1::BenchmarkReport* run : {&c->before(), &c->after()}) {
    ASSERT_EQ(run->timing().rounds_size(), 2);
    EXPECT_EQ(run->timing().rounds(0).block_count() + run->timing().rounds(1).block_count(),
              run->timing().blocks_size());
    EXPECT_EQ(run->timing().summary().block_count(), run->timing().blocks_size());
  }
  EXPECT_EQ(c->before().timing().rounds(0).position(), "first");
  EXPECT_EQ(c->before().timing().rounds(1).position(), "second");
  EXPECT_TRUE(LabelFollowsTheGuideRule(*c));
  // Paired evidence, structure only: one ratio per round pair, and two rounds are too few for
  // an interval at 90 %, whatever the timings.
  const v1::PairedEvidence& paired = c->evidence().paired();
  ASSERT_EQ(paired.round_ratios_size(), 2);
  for (double ratio : paired.round_ratios()) EXPECT_GT(ratio, 0);
  EXPECT_TRUE(paired.has_median_ratio());
  EXPECT_FALSE(paired.has_ci_low() || paired.has_ci_high());
  EXPECT_EQ(paired.claim(), v1::PairedEvidence::no_claim);
  EXPECT_EQ(paired.note(), "needs at least 5 rounds at 90% (has 2)");
}

// The default compare: forty ABBA rounds that divide --min-run-time between them (each round
// stops once the run's timed work reaches its cumulative share, so at most its last block
// runs past it), one warm-up and one block size per run, the plan recorded and rendered.
// Structure only, no timing verdict. --fixed-length: the planned rounds alone (the build pairs
// a default compare adds after them: verdict_end_to_end_test).
TEST(DaemonEndToEnd, ADefaultCompareAlternatesFortyRoundsThatShareTheTimedWork) {
  TestDaemon d(TempDir("default_rounds"));
  const std::string out = TempDir("default_rounds_out");
  const CommandResult r = d.Client(With(kGuideCompare, {"--min-run-time", "0.08", "--fixed-length", "--output", out}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  const v1::RoundPlan& plan = c->round_plan();
  EXPECT_EQ(plan.requested_rounds(), 40);
  // Fewer rounds only when a block is longer than a round's share, never below min_blocks.
  const int rounds = plan.rounds();
  ASSERT_GE(rounds, 10);
  ASSERT_LE(rounds, 40);
  EXPECT_EQ(rounds < 40, !plan.note().empty()) << plan.note();
  EXPECT_EQ(plan.order().substr(0, 40), "baseline, candidate, candidate, baseline");
  EXPECT_DOUBLE_EQ(plan.min_run_time_s(), 0.08);
  EXPECT_DOUBLE_EQ(plan.round_min_run_time_s(), 0.08 / rounds);
  EXPECT_EQ(plan.round_min_blocks(), 1);
  const std::string& id = c->before().settings().timing().interleave_id();
  EXPECT_FALSE(id.empty());
  EXPECT_EQ(c->after().settings().timing().interleave_id(), id);
  for (const auto& [run, calls_per_block] : {std::pair{&c->before(), plan.baseline_calls_per_block()},
                                             std::pair{&c->after(), plan.candidate_calls_per_block()}}) {
    const v1::Timing& t = run->timing();
    ASSERT_EQ(t.rounds_size(), rounds);
    EXPECT_EQ(t.calls_per_block(), calls_per_block);
    for (const v1::TimingBlock& b : t.blocks()) EXPECT_EQ(b.calls(), calls_per_block) << "one block size, kept";
    int64_t blocks = 0;
    double timed = 0;
    for (const v1::TimingRound& round : t.rounds()) {
      ASSERT_GE(round.block_count(), 1);
      const double target = round.round() * plan.round_min_run_time_s();  // the run's share so far
      double before_last = timed;
      for (int64_t i = round.first_block(); i < round.first_block() + round.block_count(); ++i) {
        before_last = timed;
        timed += t.blocks(i).duration_s();
      }
      EXPECT_GE(timed, target - 1e-12) << "round " << round.round() << " reached its cumulative share";
      if (round.block_count() > 1) {
        EXPECT_LT(before_last, target) << "round " << round.round() << " stopped once it had reached it";
      }
      blocks += round.block_count();
    }
    EXPECT_EQ(blocks, t.blocks_size());
  }
  const auto spans = c->timeline().spans();
  EXPECT_EQ(spans[2].phase(), "check (before timing)") << "a wrong candidate ends before any timing";
  EXPECT_EQ(spans[3].phase(), "warm-up candidate") << "both runs warm up once, before the first round";
  EXPECT_EQ(spans[4].phase(), "warm-up baseline") << "the first round's leader last: it continues from its own calls";
  EXPECT_EQ(c->evidence().paired().round_ratios_size(), rounds);
  EXPECT_DOUBLE_EQ(c->evidence().paired().min_claimed_change(), 0.01);
  EXPECT_TRUE(LabelFollowsTheGuideRule(*c));
  EXPECT_NE(Slurp(out + "/comparison.html").find(absl::StrCat("Timing plan: ", rounds, " alternating rounds")),
            std::string::npos);
}

TEST(DaemonEndToEnd, CancelStopsARunningJobAndTheNextRuns) {
  TestDaemon d(TempDir("cancel"));
  std::future<CommandResult> long_job = InBackground(d, kLongMeasure);
  const v1::Job running = WaitForRunningJob(d);
  const CommandResult cancel = d.Client({"jobs", "cancel", running.id()});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  const CommandResult waited = long_job.get();
  EXPECT_EQ(waited.exit_code, 3) << waited.err;
  EXPECT_NE(waited.err.find("cancelled"), std::string::npos) << waited.err;
  EXPECT_EQ(ShowJob(d, running.id()).state(), v1::Job::cancelled);
  EXPECT_EQ(d.Client(kQuickMeasure).exit_code, 0);
  EXPECT_EQ(d.Client({"jobs", "cancel", running.id()}).exit_code, 2);  // already finished
}

// The kill lands once the job's own record says it is timing with blocks done (not while
// LibTorch loads or the model builds), and the failed record still names that phase.
TEST(DaemonEndToEnd, WorkerKilledMidTimingFailsTheJobAndTheDaemonServes) {
  TestDaemon d(TempDir("worker_killed"));
  std::future<CommandResult> long_job = InBackground(d, kLongMeasure);
  const v1::Job running = WaitForRunningJob(d);
  const v1::Job timing = WaitForPhase(d, running.id(), "timing", 60, /*min_blocks=*/1);
  ASSERT_EQ(timing.phase(), "timing measurement");
  ASSERT_GT(timing.blocks_done(), 0);
  ASSERT_EQ(timing.worker_pid(), running.worker_pid());
  ASSERT_EQ(::kill(timing.worker_pid(), SIGKILL), 0);
  const CommandResult waited = long_job.get();
  EXPECT_EQ(waited.exit_code, 3) << waited.err;
  const v1::Job failed = ShowJob(d, running.id());
  EXPECT_EQ(failed.state(), v1::Job::failed);
  EXPECT_NE(failed.error().find("worker killed by signal 9 (SIGKILL)"), std::string::npos) << failed.error();
  // It failed in the phase the kill was aimed at, after the blocks seen before it.
  EXPECT_EQ(failed.phase(), "timing measurement");
  EXPECT_GE(failed.blocks_done(), timing.blocks_done());
  std::printf("worker killed in \"%s\" after %lld blocks (%lld at the kill's aim): %s\n", failed.phase().c_str(),
              static_cast<long long>(failed.blocks_done()), static_cast<long long>(timing.blocks_done()),
              failed.error().c_str());
  EXPECT_TRUE(d.Running());
  EXPECT_EQ(d.Client(kQuickMeasure).exit_code, 0);
}

TEST(DaemonEndToEnd, BrokenTorchScriptJobFailsWithTheReason) {
  TestDaemon d(TempDir("bad_module"));
  const std::string job = TempDir("bad_module_job") + "/job.json";
  // module_bytes: base64 of "not a module"
  std::ofstream(job) << R"({"measure": {"workload": {"model": {"torchscript": {"module_bytes": "bm90IGEgbW9kdWxl"}},
                        "inputs": [{"generated": {"shape": [2, 4]}}]}}, "options": {"min_run_time_s": 0.02}})";
  const CommandResult r = d.Client({"measure", "--job", job});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("TorchScript"), std::string::npos) << r.err;
  EXPECT_EQ(d.Client(kQuickMeasure).exit_code, 0);
}

TEST(DaemonEndToEnd, WallTimeLimitKillsTheWorker) {
  // 10 s: the quick job after it, a cold worker under the same limit, must load LibTorch and run in time
  // on two busy cores (3 s did not).
  TestDaemon d(TempDir("timeout"), {"--job-wall-time", "10"});
  const CommandResult r = d.Client(kLongMeasure, 60);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("job_wall_time_s"), std::string::npos) << r.err;
  EXPECT_EQ(d.Client(kQuickMeasure).exit_code, 0);
}

TEST(DaemonEndToEnd, Kill9OfTheDaemonLosesNothing) {
  TestDaemon d(TempDir("kill9"));
  const std::string out = TempDir("kill9_out");
  const CommandResult first = d.Client(With(kQuickMeasure, {"--label", "kill9 history"}));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string finished = SubmittedId(first.err);
  std::future<CommandResult> long_job = InBackground(d, kLongMeasure);
  const v1::Job running = WaitForRunningJob(d);
  std::future<CommandResult> queued_job = InBackground(d, kQuickMeasure);
  for (int i = 0; i < 100 && ListJobs(d, {"--state", "queued"}).empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const std::vector<v1::Job> queued = ListJobs(d, {"--state", "queued"});
  ASSERT_EQ(queued.size(), 1u);

  // The worker must not outlive its daemon, and the test does not kill it: it becomes the
  // test's orphan (OrphanAdopter) and must end by itself. It takes milliseconds here; 10 s is
  // room for two busy cores. While timing, the worker writes a progress line every 100 ms,
  // so either the daemon's death signal (PR_SET_PDEATHSIG, SIGKILL) or its next line into the
  // closed pipe (SIGPIPE) ends it first; fault_injection_test kills the daemon while the
  // worker is silent, where only the death signal can.
  ASSERT_EQ(ParentOf(running.worker_pid()), d.pid());
  OrphanAdopter adopter;
  d.Kill9();
  const OrphanAdopter::End worker = OrphanAdopter::WaitForEnd(running.worker_pid(), 10);
  EXPECT_TRUE(worker.how == "killed by signal 9 (SIGKILL)" || worker.how == "killed by signal 13 (SIGPIPE)")
      << "the worker " << running.worker_pid() << ": " << worker.how;
  std::printf("orphaned worker %d: %s %.0f ms after the daemon's kill -9\n", running.worker_pid(), worker.how.c_str(),
              worker.seconds * 1e3);
  const CommandResult lost = long_job.get();
  queued_job.get();
  // The waiting client names its job and how to pick it up once the daemon is back.
  EXPECT_EQ(lost.exit_code, 4) << lost.err;
  EXPECT_NE(lost.err.find("lost contact with the daemon while waiting for job " + running.id()), std::string::npos)
      << lost.err;
  EXPECT_NE(lost.err.find("jobs fetch " + running.id() + " --output DIR"), std::string::npos) << lost.err;
  d.Start();

  const CommandResult fetched = d.Client({"jobs", "fetch", finished, "--output", out});
  EXPECT_EQ(fetched.exit_code, 0) << fetched.err;
  absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(out + "/report.json");
  ASSERT_TRUE(report.ok()) << report.status();
  // Without --output it goes where the job commands write (./torchscan-<id>/, or -2 ... when
  // that folder exists), and says so.
  const CommandResult defaulted = d.Client({"jobs", "fetch", finished});
  EXPECT_EQ(defaulted.exit_code, 0) << defaulted.err;
  const std::string said = "wrote ./torchscan-" + finished;
  const size_t at = defaulted.err.find(said);
  ASSERT_NE(at, std::string::npos) << defaulted.err;
  const std::string written = defaulted.err.substr(at + 6, defaulted.err.find(" and its .html", at) - at - 6);
  EXPECT_TRUE(report::LoadReport(WorkingDir() + "/" + written).ok()) << written;
  // Its history point too: the index is rebuilt from the records, the summary is the record's.
  const v1::HistoryResponse history = History(d, "kill9 history");
  ASSERT_EQ(history.jobs_size(), 1);
  EXPECT_EQ(history.jobs(0).id(), finished);
  EXPECT_EQ(history.jobs(0).summary().latency().median_s(), report->timing().summary().median_s());
  EXPECT_NE(history.jobs(0).summary().machine().find("libtorch="), std::string::npos);
  const v1::Job interrupted = ShowJob(d, running.id());
  EXPECT_EQ(interrupted.state(), v1::Job::interrupted);
  EXPECT_FALSE(interrupted.error().empty());
  const CommandResult watched = d.Client({"jobs", "watch", queued[0].id()});
  EXPECT_EQ(watched.exit_code, 0) << watched.err;
  EXPECT_EQ(ShowJob(d, queued[0].id()).state(), v1::Job::succeeded);
  // It ends with the summary a job command prints, not the record's timeline.
  EXPECT_TRUE(absl::StartsWith(watched.out, "TorchScan")) << watched.out;
  EXPECT_NE(watched.out.find(" blocks"), std::string::npos) << watched.out;  // the run's line: median ± IQR
  EXPECT_EQ(watched.out.find("timeline (seconds since"), std::string::npos) << watched.out;
  EXPECT_NE(watched.err.find("jobs fetch " + queued[0].id()), std::string::npos) << watched.err;
  // The listing's columns line up: every row's STATE starts where the header's does.
  const CommandResult listed = d.Client({"jobs", "list"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const std::vector<std::string> lines = absl::StrSplit(listed.out, '\n', absl::SkipEmpty());
  ASSERT_GE(lines.size(), 3u) << listed.out;
  const size_t state_column = lines[0].find("STATE"), label_column = lines[0].find("LABEL");
  for (const std::string& line : lines) {
    EXPECT_NE(line.substr(state_column, 1), " ") << listed.out;
    EXPECT_EQ(line.substr(state_column - 2, 2), "  ") << listed.out;
    if (line.size() > label_column) {
      EXPECT_EQ(line.substr(label_column - 2, 2), "  ") << listed.out;
    }
  }
}

TEST(DaemonEndToEnd, BadRequestsNameTheProblem) {
  TestDaemon d(TempDir("bad_requests"));
  const std::string dir = TempDir("bad_requests_files");
  std::ofstream(dir + "/unknown_field.json") << R"({"measure": {"workload": {"modle": {}}}})";
  std::ofstream(dir + "/no_model.json") << R"({"measure": {"workload": {}}})";
  std::ofstream(dir + "/no_kind.json") << R"({"label": "nothing to do"})";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"measure", "--job", dir + "/unknown_field.json"}, "modle"},
      {{"measure", "--job", dir + "/no_model.json"}, "model"},
      {{"measure", "--job", dir + "/no_kind.json"}, "measure or compare"},
      {{"measure", "--job", dir + "/missing.json"}, "missing.json"},
      {{"measure", "--model", "gpt2"}, "--model"},
      {{"measure", "--device", "mps", "--min-run-time", "0.02"}, "mps"},
      {{"jobs", "show", "no-such-job"}, "no-such-job"},
      {{"render", dir + "/no_kind.json"}, "no_kind.json"},
  };
  for (const auto& [args, named] : cases) {
    const CommandResult r = d.Client(args);
    EXPECT_EQ(r.exit_code, 2) << args[args.size() - 1] << ": " << r.err;
    EXPECT_NE(r.err.find(named), std::string::npos) << r.err;
  }
  EXPECT_TRUE(d.Running());
}

TEST(DaemonEndToEnd, NoDaemonAtTheAddressIsExitFour) {
  const CommandResult r =
      torchscan::e2e::Run(Runfile("client/torchscan-client"), {"--daemon", "unix:/nonexistent/sock", "info"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("no daemon answers at unix:/nonexistent/sock"), std::string::npos) << r.err;
}

// Judged by a witness the test owns (tests/job_process_witness.h), not by the daemon's own
// started_at/finished_at: no process of one job (worker or RSS child) alive while another
// job's is, or outside its job's recorded run.
TEST(DaemonEndToEnd, TwoClientsAtOnceRunOneAfterTheOther) {
  TestDaemon d(TempDir("serialized"), {"--sandbox", "off"});  // the witness reads every job (job_process_witness.h)
  JobProcessWitness witness(d.pid());
  const std::vector<std::string> job = {"measure", "--model", "linear", "--min-run-time", "0.3", "--rss"};
  std::future<CommandResult> a = InBackground(d, job);
  std::future<CommandResult> b = InBackground(d, job);
  EXPECT_EQ(a.get().exit_code, 0);
  EXPECT_EQ(b.get().exit_code, 0);
  const std::vector<v1::Job> jobs = ListJobs(d);
  ASSERT_EQ(jobs.size(), 2u);
  const OverlapVerdict seen = JudgeOverlaps(witness.Stop(), jobs, kRecordGraceS);
  std::printf("witness: %s\n", seen.Summary().c_str());
  for (const std::string& problem : seen.problems()) ADD_FAILURE() << "executions overlapped: " << problem;
  EXPECT_EQ(seen.jobs, 2);
  EXPECT_EQ(seen.ran("torchscan-worker"), 2);
  // At least each job's own trial: a job on a warm spare also shows the spare's second
  // waiting RSS child, killed unused when the job starts (passes/peak_rss.h LaunchWaiting).
  EXPECT_GE(seen.ran("torchscan_rss_child"), 2);
}

TEST(ClientEndToEnd, EmbeddedDaemonRunsTheExample) {
  const std::string out = TempDir("embedded_out");
  const CommandResult r = torchscan::e2e::Run(Runfile("client/torchscan-client"),
                                              {"example", "--min-run-time", "0.02", "--rss", "--output", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->output_check().status(), v1::OutputCheck::passed);
  EXPECT_TRUE(Exists(out + "/comparison.html"));
  bool rss = false;
  for (const v1::MetricResult& m : c->after().totals()) rss |= m.name() == "peak_rss_bytes" && m.has_value();
  EXPECT_TRUE(rss);
}

}  // namespace
}  // namespace torchscan::e2e

namespace torchscan::e2e {
namespace {

// --daemon twice: the same job runs on each daemon, one report per machine, never pooled.
TEST(DaemonEndToEnd, OneJobOnSeveralDaemonsGivesOneReportPerMachine) {
  TestDaemon first(TempDir("fan_out_a"));
  TestDaemon second(TempDir("fan_out_b"));
  const std::string out = TempDir("fan_out_out");
  const CommandResult r = e2e::Run(
      Runfile("client/torchscan-client"),
      With({"--daemon", first.address(), "--daemon", second.address()}, With(kQuickMeasure, {"--output", out})));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Both daemons run on this host: the second folder gets a suffix.
  std::vector<std::string> folders;
  for (const auto& entry : std::filesystem::directory_iterator(out)) folders.push_back(entry.path().string());
  std::sort(folders.begin(), folders.end());
  ASSERT_EQ(folders.size(), 2u);
  EXPECT_EQ(folders[1], folders[0] + "-2");
  for (const std::string& folder : folders) {
    absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(folder + "/report.json");
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_GE(report->timing().blocks_size(), 10);
  }
  // Each daemon ran exactly one job and the summary names both machines.
  EXPECT_EQ(ListJobs(first).size(), 1u);
  EXPECT_EQ(ListJobs(second).size(), 1u);
  EXPECT_NE(r.out.find(first.address()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(second.address()), std::string::npos) << r.out;

  // A daemon that is not there fails the command (exit 4) without hiding the other's report.
  const std::string partial = TempDir("fan_out_partial");
  const CommandResult missing = e2e::Run(Runfile("client/torchscan-client"),
                                         With({"--daemon", first.address(), "--daemon", "unix:/nonexistent/d.sock"},
                                              With(kQuickMeasure, {"--output", partial})));
  EXPECT_EQ(missing.exit_code, 4) << missing.err;
  EXPECT_NE(missing.err.find("no daemon answers at unix:/nonexistent/d.sock"), std::string::npos) << missing.err;
  size_t reports = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(partial))
    reports += entry.path().filename() == "report.json";
  EXPECT_EQ(reports, 1u);

  // Commands about one job still need exactly one daemon.
  const CommandResult two = e2e::Run(Runfile("client/torchscan-client"),
                                     {"--daemon", first.address(), "--daemon", second.address(), "jobs", "list"});
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("--daemon: this command talks to one daemon"), std::string::npos) << two.err;
}

}  // namespace
}  // namespace torchscan::e2e
