// `torchscan-client calibrate` through a real torchscand and its worker: the noise floor is
// stored in the state folder, survives a daemon restart (kill -9), is shown by `info`, and is
// attached to later results: a comparison at the same settings carries it fresh in
// comparison.json and states it in comparison.html; one at another min_run_time carries it
// stale, naming min_run_time_s; a measurement carries it as well. A damaged noise_floor.json is skipped at start-up,
// not fatal. Kept small (3 pairs of 5 rounds at 0.01 s). Each pair runs in a fresh worker process of its own, and a
// cancel during a pair leaves no process of the job behind. No timing verdict is asserted: only what was recorded and
// where it travels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <future>
#include <string>
#include <vector>

#include "io/proto_json.h"
#include "proto/service.pb.h"
#include "report/report_json.h"
#include "tests/descendants.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"
#include "tests/e2e_timeline.h"
#include "tests/job_process_witness.h"
#include "tests/overlap_verdict.h"

namespace torchscan::e2e {
namespace {

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

v1::DaemonInfo Info(const TestDaemon& d) {
  const CommandResult r = d.Client({"--json", "info"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  v1::DaemonInfo info;
  const absl::Status s = ParseJsonStrict(r.out, "info", &info);
  EXPECT_TRUE(s.ok()) << s << "\n" << r.out;
  return info;
}

// `err` (may be null) gets the client's stderr.
absl::StatusOr<v1::Comparison> Compare(const TestDaemon& d, const std::string& out, const std::string& min_run_time,
                                       std::string* err = nullptr) {
  const CommandResult r = d.Client(
      {"compare", "--model", "linear", "--no-check", "--rounds", "5", "--min-run-time", min_run_time, "--output", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (err != nullptr) *err = r.err;
  return report::LoadComparison(out + "/comparison.json");  // strict: validated
}

TEST(CalibrateEndToEnd, TheNoiseFloorSurvivesARestartAndReachesLaterComparisons) {
  TestDaemon d(TempDir("state"));
  EXPECT_FALSE(Info(d).has_noise_floor());  // none yet

  const std::string cal_out = TempDir("calibration");
  const CommandResult cal =
      d.Client({"calibrate", "--pairs", "3", "--rounds", "5", "--min-run-time", "0.01", "--output", cal_out});
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  const std::string id = SubmittedId(cal.err);
  ASSERT_FALSE(id.empty()) << cal.err;
  // Progress names the pair. The client prints the phases it is sent, and a short one (pair
  // 3's timing, tens of ms) can be passed over under load; its LibTorch load (about 1 s) is
  // not. The job's timeline records every phase.
  EXPECT_TRUE(Has(cal.err, "pair 3/3: ")) << cal.err;
  const v1::Job calibrated = ShowJob(d, id);
  EXPECT_FALSE(Spans(calibrated.timeline(), "pair 3/3: timing").empty())
      << ::testing::PrintToString(PhaseNames(calibrated.timeline()));
  EXPECT_TRUE(Has(cal.out, "A/A pairs faster or slower (noise floor of ")) << cal.out;
  v1::Calibration calibration;
  ASSERT_TRUE(LoadJsonStrict(cal_out + "/calibration.json", &calibration).ok());
  const v1::NoiseFloor& floor = calibration.noise_floor();
  std::printf("noise floor: %s\n", floor.ShortDebugString().c_str());
  EXPECT_EQ(floor.job_id(), id);
  EXPECT_EQ(floor.pairs(), 3);
  EXPECT_EQ(calibration.pairs_size(), 3);
  EXPECT_EQ(floor.rounds(), 5);
  EXPECT_EQ(floor.min_run_time_s(), 0.01);
  EXPECT_EQ(floor.device(), "cpu");
  EXPECT_TRUE(Has(floor.workload(), "linear")) << floor.workload();
  EXPECT_FALSE(floor.measured_at().empty());
  EXPECT_TRUE(Has(Slurp(d.state_dir() + "/noise_floor.json"), id));
  // What a compare at its defaults is expected to do here, and the page beside the JSON.
  ASSERT_TRUE(floor.has_forecast());
  EXPECT_GT(floor.forecast().planned_s(), 0);
  EXPECT_GT(floor.forecast().build_pair_s(), 0);
  EXPECT_GT(floor.forecast().outside_timing_s(), 0.5) << "builds and the work after timing: the cap counts them";
  EXPECT_EQ(floor.workload_key().rfind("fnv1a64:", 0), 0u) << floor.workload_key();
  EXPECT_GT(floor.forecast().simulations(), 0);
  const std::string cal_page = Slurp(cal_out + "/calibration.html");
  EXPECT_TRUE(Has(cal_page, "<h2>A compare at its defaults, here</h2>")) << cal_page.substr(0, 2000);
  EXPECT_TRUE(Has(cal_page, "<h2>A/A pairs</h2>"));

  // A restart (kill -9: no chance to save anything at exit) finds it in the state folder.
  d.Kill9();
  d.Start();
  const v1::DaemonInfo info = Info(d);
  ASSERT_TRUE(info.has_noise_floor());
  EXPECT_EQ(info.noise_floor().job_id(), id);
  EXPECT_EQ(info.noise_floor().measured_at(), floor.measured_at());
  EXPECT_FALSE(info.noise_floor().stale()) << info.noise_floor().stale_reason();
  EXPECT_GE(info.noise_floor().age_s(), 0);
  const CommandResult text = d.Client({"info"});
  EXPECT_TRUE(Has(text.out, "  noise     ") && Has(text.out, "job " + id)) << text.out;

  // A comparison at the calibration's settings carries it, fresh, and its page says it.
  const std::string same = TempDir("same_settings");
  std::string said;
  absl::StatusOr<v1::Comparison> c = Compare(d, same, "0.01", &said);
  ASSERT_TRUE(c.ok()) << c.status();
  // Before it started, the client said what it expected from the stored forecast.
  EXPECT_TRUE(Has(said, "torchscan-client: expected here: ")) << said;
  EXPECT_TRUE(Has(said, " s (20 s at most; ")) << said;
  EXPECT_FALSE(Has(said, "not this compare's workload")) << "the calibrated workload, compared: " << said;
  ASSERT_TRUE(c->has_noise_floor());
  EXPECT_EQ(c->noise_floor().job_id(), id);
  EXPECT_EQ(c->noise_floor().measured_at(), floor.measured_at());
  EXPECT_FALSE(c->noise_floor().stale()) << c->noise_floor().stale_reason();
  const std::string page = Slurp(same + "/comparison.html");
  EXPECT_TRUE(Has(page, "<p class=\"noise-floor\">")) << "no noise floor sentence";
  EXPECT_TRUE(Has(page, "of 3 A/A pairs faster or slower (noise floor of ")) << "no noise floor sentence";
  EXPECT_TRUE(Has(page, floor.forecast().has_resolvable_change() ? "A compare at its defaults resolves changes of about"
                        : floor.has_resolvable_change()          ? "This machine resolves changes of about"
                                                                 : "resolvable change is unknown"));

  // At another min_run_time it is stale, and says which setting differs.
  const std::string other = TempDir("other_settings");
  absl::StatusOr<v1::Comparison> stale = Compare(d, other, "0.02");
  ASSERT_TRUE(stale.ok()) << stale.status();
  ASSERT_TRUE(stale->has_noise_floor());
  EXPECT_TRUE(stale->noise_floor().stale());
  EXPECT_TRUE(Has(stale->noise_floor().stale_reason(), "min_run_time_s 0.01 (this run 0.02)"))
      << stale->noise_floor().stale_reason();
  EXPECT_TRUE(Has(Slurp(other + "/comparison.html"), "Stale noise floor (measured at other settings: min_run_time_s"));

  // A measurement carries it too; a single run has no rounds to differ in.
  const std::string measured = TempDir("measure");
  const CommandResult m = d.Client({"measure", "--model", "linear", "--min-run-time", "0.01", "--output", measured});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(measured + "/report.json");
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->has_noise_floor());
  EXPECT_EQ(report->noise_floor().job_id(), id);
  EXPECT_FALSE(report->noise_floor().stale()) << report->noise_floor().stale_reason();
  EXPECT_TRUE(Has(Slurp(measured + "/report.html"), "<p class=\"noise-floor\">"));

  // A damaged file is skipped at start-up: the daemon runs, without a noise floor.
  d.Kill9();
  std::ofstream(d.state_dir() + "/noise_floor.json") << "{\"pairs\": ";
  d.Start();
  EXPECT_FALSE(Info(d).has_noise_floor());
}

// Each pair runs in a fresh worker process of its own, started by the job's worker: the job's
// record shows each pair's process start, and a cancel while pair 2 times kills that process
// too. Judged by the overlap witness the test owns (tests/job_process_witness.h): no process of
// the job is alive after its record says finished. No timing verdict is asserted.
TEST(CalibrateEndToEnd, EachPairRunsInAFreshProcessAndACancelLeavesNoneBehind) {
  TestDaemon d(TempDir("cancel_state"), {"--sandbox", "off"});  // the witness reads every job (job_process_witness.h)
  JobProcessWitness witness(d.pid());
  std::future<CommandResult> client =
      InBackground(d, {"calibrate", "--pairs", "3", "--rounds", "5", "--min-run-time", "2"});
  const v1::Job running = WaitForRunningJob(d);
  WaitForPhase(d, running.id(), "pair 2/3: timing", 120, /*min_blocks=*/1);
  const pid_t pair = WaitForChild(running.worker_pid(), "torchscan-worke", 10);
  ASSERT_GT(pair, 0) << "no pair process below worker " << running.worker_pid();
  const CommandResult cancel = d.Client({"jobs", "cancel", running.id()});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;

  const CommandResult waited = client.get();
  EXPECT_EQ(waited.exit_code, 3) << waited.err;
  EXPECT_TRUE(Has(waited.err, "cancelled")) << waited.err;
  const v1::Job cancelled = ShowJob(d, running.id());
  EXPECT_EQ(cancelled.state(), v1::Job::cancelled);
  EXPECT_FALSE(AliveNotZombie(pair)) << "pair 2's process " << pair << " outlived its job";
  std::vector<std::string> phases;
  for (const v1::PhaseSpan& span : cancelled.timeline().spans()) phases.push_back(span.phase());
  for (const char* phase : {"pair 1/3: worker start", "pair 1/3: LibTorch load", "pair 1/3: timing baseline",
                            "pair 2/3: worker start", "pair 2/3: LibTorch load"})
    EXPECT_NE(std::find(phases.begin(), phases.end(), phase), phases.end()) << phase;

  const OverlapVerdict seen = JudgeOverlaps(witness.Stop(), ListJobs(d), kRecordGraceS);
  std::printf("witness: %s\n", seen.Summary().c_str());
  for (const std::string& problem : seen.problems()) ADD_FAILURE() << "witness: " << problem;
  EXPECT_EQ(seen.jobs, 1);
  EXPECT_EQ(seen.ran("torchscan-worker"), 3) << "the job's worker and one process per pair started";
}

}  // namespace
}  // namespace torchscan::e2e
