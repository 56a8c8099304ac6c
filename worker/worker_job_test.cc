// The worker's job in-process: option mapping, refusals with exit codes, and one tiny real
// linear measurement with its progress lines.
#include "worker/worker_job.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "io/file_io.h"
#include "io/proto_json.h"
#include "worker/job_options.h"
#include "worker/worker_protocol.h"

namespace torchscan::worker {
namespace {

namespace fs = std::filesystem;

std::string JobDir(const std::string& name, const std::string& spec_json) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir + "/spec.json") << spec_json;
  return dir;
}

struct Ran {
  int code;
  std::string progress, errors;
};

Ran RunIn(const std::string& dir) {
  std::ostringstream progress, errors;
  WorkerFlags flags;
  flags.job_dir = dir;
  flags.self_path = std::string(std::getenv("TEST_SRCDIR")) + "/torchscan/worker/torchscan-worker";
  const int code = RunWorkerJob(flags, progress, errors);
  return {code, progress.str(), errors.str()};
}

v1::JobSpec Compare() {
  v1::JobSpec spec;
  spec.mutable_compare()->mutable_baseline()->mutable_model()->set_builtin(v1::ModelSpec::linear);
  spec.mutable_compare()->mutable_candidate()->mutable_model()->set_builtin(v1::ModelSpec::linear);
  spec.mutable_compare()->mutable_check()->mutable_declarative()->set_rtol(1e-3);
  spec.mutable_compare()->mutable_check()->mutable_declarative()->set_atol(1e-6);
  return spec;
}

TEST(JobOptions, ZeroValuesTakeTheDefaults) {
  absl::StatusOr<experiment::ExperimentOptions> o = ExperimentOptionsFor(Compare(), "");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->timing.min_run_time_s, 0.2);
  EXPECT_EQ(o->timing.min_blocks, 10);
  EXPECT_EQ(o->timing.max_run_time_s, 0);
  EXPECT_EQ(o->intra_op_threads, 1);
  EXPECT_EQ(o->inter_op_threads, 1);
  EXPECT_EQ(o->profile_calls, 10);
  EXPECT_FALSE(o->rss);
  EXPECT_FALSE(o->reverse);
  EXPECT_EQ(o->rounds, 40) << "a compare job with rounds 0 is interleaved by default";
  EXPECT_FALSE(o->skip_check);
  EXPECT_EQ(o->check.rtol, 1e-3);  // the job's own: there is no default tolerance
  EXPECT_EQ(o->check.atol, 1e-6);
  EXPECT_TRUE(o->check.require_finite);
  EXPECT_EQ(o->check.compare_dtype, "");
}

TEST(JobOptions, ACompareJobWithoutItsCheckIsRefused) {
  v1::JobSpec spec = Compare();
  spec.mutable_compare()->clear_check();
  const absl::Status s = ExperimentOptionsFor(spec, "").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().find("spec.compare.check:"), 0u) << s;
}

TEST(JobOptions, CompareDTypeIsPassedOn) {
  v1::JobSpec spec = Compare();
  spec.mutable_compare()->mutable_check()->mutable_declarative()->set_compare_dtype(v1::DeclarativeCheck::float32);
  EXPECT_EQ(ExperimentOptionsFor(spec, "")->check.compare_dtype, "float32");
}

TEST(JobOptions, GivenValuesAreKept) {
  v1::JobSpec spec = Compare();
  v1::MeasurementOptions* m = spec.mutable_options();
  m->set_min_run_time_s(0.5);
  m->set_min_blocks(3);
  m->set_max_run_time_s(2);
  m->set_intra_op_threads(2);
  m->set_inter_op_threads(3);
  m->set_profile_calls(4);
  m->set_rss(true);
  m->set_skip_diagnostics(true);
  spec.mutable_compare()->set_reverse(true);
  v1::DeclarativeCheck* check = spec.mutable_compare()->mutable_check()->mutable_declarative();
  check->set_rtol(0);
  check->set_allow_non_finite(true);
  absl::StatusOr<experiment::ExperimentOptions> o = ExperimentOptionsFor(spec, "/rss/child");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->timing.min_run_time_s, 0.5);
  EXPECT_EQ(o->timing.min_blocks, 3);
  EXPECT_EQ(o->timing.max_run_time_s, 2);
  EXPECT_EQ(o->intra_op_threads, 2);
  EXPECT_EQ(o->inter_op_threads, 3);
  EXPECT_EQ(o->profile_calls, 4);
  EXPECT_TRUE(o->rss);
  EXPECT_EQ(o->rss_child_path, "/rss/child");
  EXPECT_TRUE(o->skip_diagnostics);
  EXPECT_TRUE(o->reverse);
  EXPECT_EQ(o->check.rtol, 0);  // explicitly zero
  EXPECT_EQ(o->check.atol, 1e-6);
  EXPECT_FALSE(o->check.require_finite);
}

TEST(JobOptions, SkipMeansNoCheck) {
  v1::JobSpec spec = Compare();
  spec.mutable_compare()->mutable_check()->set_skip(true);
  EXPECT_TRUE(ExperimentOptionsFor(spec, "")->skip_check);
}

TEST(JobOptions, TorchScriptCheckModuleIsPassedOn) {
  v1::JobSpec spec = Compare();
  spec.mutable_compare()->mutable_check()->mutable_torchscript()->set_path("/check.pt");
  absl::StatusOr<experiment::ExperimentOptions> o = ExperimentOptionsFor(spec, "");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->check_module.path(), "/check.pt");
}

TEST(JobOptions, RefusalsNameTheField) {
  v1::JobSpec spec = Compare();
  absl::Status s;
  spec.mutable_options()->set_rss(true);
  s = ExperimentOptionsFor(spec, "").status();
  EXPECT_EQ(s.message().find("spec.options.rss:"), 0u) << s;

  spec = Compare();
  spec.mutable_options()->set_min_blocks(-1);
  s = ExperimentOptionsFor(spec, "").status();
  EXPECT_EQ(s.message().find("spec.options.min_blocks:"), 0u) << s;
}

TEST(WorkerJob, BadSpecsExitTwoWithTheReason) {
  Ran missing = RunIn(std::string(std::getenv("TEST_TMPDIR")) + "/no_such_job");
  EXPECT_EQ(missing.code, kWorkerBadSpec);
  EXPECT_EQ(missing.errors.find("torchscan-worker: "), 0u) << missing.errors;
  EXPECT_NE(missing.errors.find("spec.json"), std::string::npos) << missing.errors;

  Ran unknown = RunIn(JobDir("unknown_field", R"({"measure": {"workload": {"modle": {}}}})"));
  EXPECT_EQ(unknown.code, kWorkerBadSpec);
  EXPECT_NE(unknown.errors.find("modle"), std::string::npos) << unknown.errors;

  Ran empty = RunIn(JobDir("no_kind", "{}"));
  EXPECT_EQ(empty.code, kWorkerBadSpec);
  EXPECT_NE(empty.errors.find("spec: set exactly one of measure, compare or calibrate"), std::string::npos)
      << empty.errors;
}

TEST(WorkerJob, WorkloadErrorsExitThree) {
  Ran ran = RunIn(JobDir("no_model", R"({"measure": {"workload": {}}})"));
  EXPECT_EQ(ran.code, kWorkerWorkloadError) << ran.errors;
  EXPECT_EQ(ran.errors.find("torchscan-worker: "), 0u) << ran.errors;
  EXPECT_FALSE(fs::exists(std::string(std::getenv("TEST_TMPDIR")) + "/no_model/result.json"));
}

TEST(WorkerJob, MeasuresAndWritesTheResultWithProgress) {
  const std::string dir = JobDir("linear", R"({"measure": {"workload": {"model": {"builtin": "linear"}}},
      "options": {"min_run_time_s": 0.02, "skip_diagnostics": true}})");
  Ran ran = RunIn(dir);
  ASSERT_EQ(ran.code, kWorkerOk) << ran.errors;
  EXPECT_NE(ran.progress.find("phase build measurement\n"), std::string::npos) << ran.progress;
  EXPECT_NE(ran.progress.find("phase timing measurement\n"), std::string::npos) << ran.progress;
  EXPECT_NE(ran.progress.find("\nblocks "), std::string::npos) << ran.progress;
  EXPECT_EQ(ran.progress.substr(ran.progress.size() - 5), "done\n") << ran.progress;
  absl::StatusOr<std::string> json = ReadFile(dir + "/result.json");
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"report\""), std::string::npos);
  EXPECT_NE(json->find("\"work_unit\": \"samples\""), std::string::npos);
}

// The result's timeline holds every phase the progress lines announced, in that order ("write
// result" comes after the result is made), on one clock that starts with the worker's job.
TEST(WorkerJob, TheTimelineListsThePhasesAnnouncedInOrder) {
  const std::string dir = JobDir("timeline", R"({"measure": {"workload": {"model": {"builtin": "linear"}}},
      "options": {"min_run_time_s": 0.02, "profile_calls": 1}})");
  Ran ran = RunIn(dir);
  ASSERT_EQ(ran.code, kWorkerOk) << ran.errors;
  std::vector<std::string> announced;
  std::istringstream lines(ran.progress);
  for (std::string line; std::getline(lines, line);) {
    const std::optional<WorkerLine> parsed = ParseWorkerLine(line);
    if (parsed && parsed->kind == WorkerLine::Kind::kPhase && parsed->phase != "write result")
      announced.push_back(parsed->phase);
  }
  v1::JobResult result;
  ASSERT_TRUE(LoadJsonStrict(dir + "/result.json", &result).ok());
  const v1::Timeline& timeline = result.report().timeline();
  std::vector<std::string> recorded;
  double previous_end = 0;
  for (const v1::PhaseSpan& span : timeline.spans()) {
    recorded.push_back(span.phase());
    EXPECT_GE(span.start_s(), previous_end) << span.phase();
    EXPECT_GE(span.end_s(), span.start_s()) << span.phase();
    previous_end = span.end_s();
  }
  EXPECT_EQ(recorded, (std::vector<std::string>{"build measurement", "timing measurement", "profile measurement",
                                                "memory measurement"}));
  EXPECT_EQ(recorded, announced) << ran.progress;
  EXPECT_FALSE(timeline.started_at().empty());
  EXPECT_EQ(timeline.clock(), "std::chrono::steady_clock");
}

// A tiny calibration: two A/A pairs of the reference workload, each phase announced with its
// pair, and a noise floor over both (no timing verdict is asserted: only what was counted).
TEST(WorkerJob, CalibratesWithPairsOfTheReferenceWorkload) {
  const std::string dir = JobDir("calibrate", R"({"calibrate": {"pairs": 2, "rounds": 5},
      "options": {"min_run_time_s": 0.01, "rss": true}})");
  Ran ran = RunIn(dir);
  ASSERT_EQ(ran.code, kWorkerOk) << ran.errors;
  EXPECT_NE(ran.progress.find("phase pair 1/2: timing baseline\n"), std::string::npos) << ran.progress;
  EXPECT_NE(ran.progress.find("phase pair 2/2: timing candidate\n"), std::string::npos) << ran.progress;
  EXPECT_NE(ran.progress.find("phase pair 2/2: LibTorch load\n"), std::string::npos) << ran.progress;  // fresh process
  EXPECT_EQ(ran.progress.find("profile"), std::string::npos) << ran.progress;                          // no diagnostics
  EXPECT_EQ(ran.progress.find("rss"), std::string::npos) << ran.progress;                              // rss ignored
  v1::JobResult result;
  ASSERT_TRUE(LoadJsonStrict(dir + "/result.json", &result).ok());
  ASSERT_TRUE(result.has_calibration());
  const v1::NoiseFloor& floor = result.calibration().noise_floor();
  EXPECT_EQ(floor.pairs(), 2);
  EXPECT_EQ(result.calibration().pairs_size(), 2);
  EXPECT_EQ(floor.rounds(), 5);
  EXPECT_EQ(floor.min_run_time_s(), 0.01);
  EXPECT_EQ(floor.device(), "cpu");
  EXPECT_NE(floor.workload().find("linear"), std::string::npos) << floor.workload();
  EXPECT_FALSE(floor.measured_at().empty());
  EXPECT_EQ(result.calibration().pairs(0).claim().empty(), false);
}

}  // namespace
}  // namespace torchscan::worker
