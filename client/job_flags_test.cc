#include "client/job_flags.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>

#include <gtest/gtest.h>

#include "io/zip_fixture.h"

namespace torchscan {
namespace {

// A comparison that states its tolerance, as every comparison must.
CompareFlags WithTolerance(CompareFlags f = {}) {
  f.check.rtol = 1e-3;
  f.check.atol = 1e-6;
  return f;
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(JobFlags, ExampleDefaultsArePerSampleVersusBatchWithTheGuideTolerances) {
  absl::StatusOr<v1::JobSpec> spec = CompareSpecFromFlags(GuideExampleFlags());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->compare().baseline().model().builtin(), v1::ModelSpec::linear);
  EXPECT_EQ(spec->compare().baseline().execution_mode(), v1::WorkloadSpec::per_sample);
  EXPECT_EQ(spec->compare().candidate().execution_mode(), v1::WorkloadSpec::batch);
  EXPECT_DOUBLE_EQ(spec->compare().check().declarative().rtol(), 1e-4);
  EXPECT_DOUBLE_EQ(spec->compare().check().declarative().atol(), 1e-5);
  EXPECT_EQ(spec->options().intra_op_threads(), 1);
  EXPECT_DOUBLE_EQ(spec->options().min_run_time_s(), 0.2);
  EXPECT_FALSE(spec->options().rss());
}

TEST(JobFlags, ACompareWithoutItsCheckIsRefusedWithTheThreeChoices) {
  absl::StatusOr<v1::JobSpec> spec = CompareSpecFromFlags(CompareFlags{});
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  for (const char* text : {"--rtol/--atol:", "does not choose a tolerance", "--check-module FILE", "--no-check"})
    EXPECT_NE(spec.status().message().find(text), std::string::npos) << spec.status();
  CompareFlags rtol_only;
  rtol_only.check.rtol = 0.01;
  EXPECT_EQ(CompareSpecFromFlags(rtol_only).status().message().rfind("--atol: required with --rtol", 0), 0u);
}

TEST(JobFlags, CompareDefaultsToTheSameModeOnBothSides) {
  absl::StatusOr<v1::JobSpec> spec = CompareSpecFromFlags(WithTolerance());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->compare().baseline().execution_mode(), v1::WorkloadSpec::batch);
  EXPECT_EQ(spec->compare().candidate().execution_mode(), v1::WorkloadSpec::batch);
  EXPECT_DOUBLE_EQ(spec->compare().check().declarative().rtol(), 1e-3);
  EXPECT_DOUBLE_EQ(spec->compare().check().declarative().atol(), 1e-6);
  EXPECT_DOUBLE_EQ(spec->compare().smallest_change(), kDefaultSmallestChange) << "decides at the defaults";
  EXPECT_DOUBLE_EQ(spec->compare().max_time_s(), kDefaultCompareMaxTimeS);
  EXPECT_FALSE(spec->compare().fixed_length());
  CompareFlags f = WithTolerance();
  f.smallest_change = 0.03;
  f.max_time = 5;
  f.fixed_length = true;
  spec = CompareSpecFromFlags(f);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_DOUBLE_EQ(spec->compare().smallest_change(), 0.03);
  EXPECT_DOUBLE_EQ(spec->compare().max_time_s(), 5);
  EXPECT_TRUE(spec->compare().fixed_length());
}

TEST(JobFlags, TwoModuleFilesWithInputsMetadataAndCandidateChanges) {
  const std::string a = WriteTemp("a.pt", ZipOf({"a/code/a.py"})), b = WriteTemp("b.pt", ZipOf({"b/code/b.py"}));
  CompareFlags f = WithTolerance();
  f.baseline_file = a;
  f.candidate_file = b;
  f.model.inputs = {{"--input", "64x256"}};
  f.model.metadata = {"dataset_revision=v3"};
  f.model.work_unit = "rows";
  f.candidate.method = "forward_fast";
  f.candidate.optimize_for_inference = true;
  f.candidate.dtype = "bfloat16";
  f.check.check_dtype = "float32";
  absl::StatusOr<v1::JobSpec> spec = CompareSpecFromFlags(f);
  ASSERT_TRUE(spec.ok()) << spec.status();
  const v1::WorkloadSpec& base = spec->compare().baseline();
  const v1::WorkloadSpec& cand = spec->compare().candidate();
  EXPECT_EQ(base.model().torchscript().module_bytes(), ZipOf({"a/code/a.py"}));
  EXPECT_EQ(base.model().torchscript().source_name(), a);
  EXPECT_EQ(cand.model().torchscript().module_bytes(), ZipOf({"b/code/b.py"}));
  EXPECT_EQ(base.model().torchscript().method(), "");
  EXPECT_EQ(cand.model().torchscript().method(), "forward_fast");
  EXPECT_FALSE(base.optimize_for_inference());
  EXPECT_TRUE(cand.optimize_for_inference());
  EXPECT_EQ(base.dtype(), v1::WorkloadSpec::float32);
  EXPECT_EQ(cand.dtype(), v1::WorkloadSpec::bfloat16);
  for (const v1::WorkloadSpec* w : {&base, &cand}) {
    ASSERT_EQ(w->inputs_size(), 1);
    EXPECT_EQ(w->inputs(0).generated().shape(1), 256);
    EXPECT_EQ(w->input_metadata().at("dataset_revision"), "v3");
    EXPECT_EQ(w->work_unit(), "rows");
  }
  EXPECT_EQ(spec->compare().check().declarative().compare_dtype(), v1::DeclarativeCheck::float32);
}

TEST(JobFlags, OneModuleFileServesBothSides) {
  CompareFlags f = WithTolerance();
  f.model.torchscript = WriteTemp("m.pt", TorchScriptZip());
  f.model.inputs = {{"--input", "8x4"}};
  f.candidate.freeze = true;
  f.candidate.channels_last = true;
  absl::StatusOr<v1::JobSpec> spec = CompareSpecFromFlags(f);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->compare().baseline().model().torchscript().module_bytes(), TorchScriptZip());
  EXPECT_EQ(spec->compare().candidate().model().torchscript().module_bytes(), TorchScriptZip());
  EXPECT_TRUE(spec->compare().candidate().freeze());
  EXPECT_TRUE(spec->compare().candidate().channels_last());
  EXPECT_FALSE(spec->compare().baseline().freeze());
}

TEST(JobFlags, DaemonPathSendsEveryFileAsAnAbsolutePathUnread) {
  CompareFlags f;
  f.baseline_file = "/srv/models/a.pt";
  f.candidate_file = "/srv/models/../models/b.pt";
  f.model.inputs = {{"--input-file", "x=/srv/data/x.pt"}};
  f.check.check_module = "/srv/models/check.pt";
  f.model.daemon_path = true;
  absl::StatusOr<v1::JobSpec> spec = CompareSpecFromFlags(f);
  ASSERT_TRUE(spec.ok()) << spec.status();  // nothing here exists: the daemon's machine reads them
  EXPECT_EQ(spec->compare().baseline().model().torchscript().path(), "/srv/models/a.pt");
  EXPECT_EQ(spec->compare().candidate().model().torchscript().path(), "/srv/models/b.pt");
  EXPECT_EQ(spec->compare().candidate().inputs(0).tensor_file(), "/srv/data/x.pt");
  EXPECT_EQ(spec->compare().check().torchscript().path(), "/srv/models/check.pt");
  f.model.daemon_path = false;  // uploaded: each must be readable here, the first missing one named
  spec = CompareSpecFromFlags(f);
  EXPECT_EQ(spec.status().message().rfind("--baseline: cannot read '/srv/models/a.pt'", 0), 0u) << spec.status();
}

TEST(LoadJobFileWithFiles, UploadsTheFilesAJobFileNamesUnlessDaemonPath) {
  const std::string module = WriteTemp("job_module.pt", TorchScriptZip());
  const std::string job = WriteTemp("upload_job.json", R"({"measure": {"workload": {
      "model": {"torchscript": {"path": "job_module.pt"}}, "inputs": [{"generated": {"shape": [2]}}]}}})");
  absl::StatusOr<v1::JobSpec> spec = LoadJobFileWithFiles(job, FileTransport::kUpload);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->measure().workload().model().torchscript().module_bytes(), TorchScriptZip());
  EXPECT_EQ(spec->measure().workload().model().torchscript().source_name(), module);
  spec = LoadJobFileWithFiles(job, FileTransport::kDaemonPath);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->measure().workload().model().torchscript().path(), module);
}

TEST(JobFlags, CompareFlagsReachTheSpec) {
  CompareFlags f;
  f.model.model = "bert";
  f.run.threads = 2;
  f.run.min_run_time = 1;
  f.run.rss = true;
  f.reverse = true;
  f.check.no_check = true;
  f.run.label = "mlp-latency";
  f.run.revision = "3f2c1e0";
  absl::StatusOr<v1::JobSpec> spec = CompareSpecFromFlags(f);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->compare().candidate().model().builtin(), v1::ModelSpec::bert);
  EXPECT_TRUE(spec->compare().reverse());
  EXPECT_TRUE(spec->compare().check().skip());
  EXPECT_EQ(spec->options().intra_op_threads(), 2);
  EXPECT_TRUE(spec->options().rss());
  EXPECT_EQ(spec->label(), "mlp-latency");
  EXPECT_EQ(spec->revision(), "3f2c1e0");
}

TEST(JobFlags, EachBadFlagIsNamed) {
  const std::string module = WriteTemp("module.pt", TorchScriptZip());
  const std::vector<std::pair<std::function<void(CompareFlags&)>, std::string>> cases = {
      {[](CompareFlags& f) { f.model.model = "gpt2"; }, "--model"},
      {[](CompareFlags& f) { f.model.model = "builtin_unspecified"; }, "--model"},
      {[](CompareFlags& f) { f.run.threads = 0; }, "--threads"},
      {[](CompareFlags& f) { f.run.min_run_time = -1; }, "--min-run-time"},
      {[](CompareFlags& f) { f.run.min_run_time = std::nan(""); }, "--min-run-time"},
      {[](CompareFlags& f) { f.candidate.mode = "turbo"; }, "--candidate-mode"},
      {[](CompareFlags& f) { f.candidate.dtype = "int8"; }, "--candidate-dtype"},
      {[](CompareFlags& f) { f.check.rtol = -1; }, "--rtol"},
      {[](CompareFlags& f) { f.check.atol = std::numeric_limits<double>::infinity(); }, "--atol"},
      {[](CompareFlags& f) { f.check.check_dtype = "int8"; }, "--check-dtype"},
      {[](CompareFlags& f) { f.model.method = "forward"; }, "--method"},
      {[](CompareFlags& f) { f.candidate.method = "fast"; }, "--candidate-method"},
      {[](CompareFlags& f) { f.candidate.freeze = true; }, "--candidate-freeze"},
      {[](CompareFlags& f) { f.candidate.optimize_for_inference = true; }, "--candidate-optimize-for-inference"},
      {[](CompareFlags& f) { f.model.work_unit = "rows"; }, "--work-unit"},
      {[](CompareFlags& f) { f.model.torchscript = "/no/such/module.pt"; }, "--torchscript"},
      {[&](CompareFlags& f) { f.model.torchscript = module; }, "--input"},  // a module needs its inputs
      {[&](CompareFlags& f) {
         f.model.torchscript = module;
         f.model.model = "linear";
       },
       "--model"},
      {[&](CompareFlags& f) { f.baseline_file = module; }, "--candidate"},
      {[&](CompareFlags& f) { f.candidate_file = module; }, "--baseline"},
      {[&](CompareFlags& f) { f.baseline_file = f.candidate_file = f.model.torchscript = module; }, "--torchscript"},
      {[](CompareFlags& f) {
         f.model.inputs = {{"--input", "4y4"}};
       },
       "--input"},
      {[](CompareFlags& f) {
         f.model.inputs = {{"--input-file", "/no/such/x.pt"}};
       },
       "--input-file"},
      {[](CompareFlags& f) { f.model.metadata = {"seed=3"}; }, "--metadata"},
      {[](CompareFlags& f) {
         f.check.check_module = "/no/such/check.pt";
         f.check.rtol = f.check.atol = std::nan("");
       },
       "--check-module"},
      {[](CompareFlags& f) { f.rounds = 0; }, "--rounds"},
      {[](CompareFlags& f) { f.smallest_change = 0; }, "--smallest-change"},
      {[](CompareFlags& f) { f.smallest_change = std::nan(""); }, "--smallest-change"},
      {[](CompareFlags& f) { f.max_time = -1; }, "--max-time"},
      {[](CompareFlags& f) { f.max_other_cpu_share = 0.01; }, "--max-other-cpu-share"},
      {[](CompareFlags& f) { f.max_other_cpu_share = std::nan(""); }, "--max-other-cpu-share"},
      {[](CompareFlags& f) { f.run.label = "x\x1b[2Jy"; }, "--label"},
      {[](CompareFlags& f) { f.run.revision = "abc\ndef"; }, "--revision"},
      {[](CompareFlags& f) { f.run.revision = std::string(kMaxJobTextBytes + 1, 'r'); }, "--revision"},
      {[](CompareFlags& f) { f.check.check_module = "/x.pt"; }, "--check-module"},  // and --rtol/--atol
      {[](CompareFlags& f) { f.check.no_check = true; }, "--no-check"},             // and --rtol/--atol
  };
  for (const auto& [mutate, flag] : cases) {
    CompareFlags f = WithTolerance();
    mutate(f);
    absl::StatusOr<v1::JobSpec> spec = CompareSpecFromFlags(f);
    ASSERT_FALSE(spec.ok()) << flag;
    EXPECT_EQ(spec.status().message().substr(0, flag.size()), flag) << spec.status();
  }
}

// The flags' limits are proto/spec_limits.h's: their value passes, a step over is refused.
TEST(JobFlags, EachFlagLimitPassesAtItsValueAndRefusesAStepOver) {
  const std::vector<std::pair<std::function<void(CompareFlags&, int extra)>, std::string>> cases = {
      {[](CompareFlags& f, int extra) { f.run.threads = kMaxThreads + extra; }, "--threads"},
      {[](CompareFlags& f, int extra) { f.run.min_run_time = kMaxMinRunTimeFlagS + extra; }, "--min-run-time"},
      {[](CompareFlags& f, int extra) { f.rounds = kMaxRounds + extra; }, "--rounds"},
      {[](CompareFlags& f, int extra) { f.smallest_change = kMaxSmallestChange + 0.01 * extra; }, "--smallest-change"},
      {[](CompareFlags& f, int extra) { f.max_time = kMaxCompareMaxTimeS + extra; }, "--max-time"},
      {[](CompareFlags& f, int extra) { f.max_other_cpu_share = 1 + 0.01 * extra; }, "--max-other-cpu-share"},
  };
  for (const auto& [set, flag] : cases) {
    CompareFlags at = WithTolerance();
    set(at, 0);
    EXPECT_TRUE(CompareSpecFromFlags(at).ok()) << flag << ": " << CompareSpecFromFlags(at).status();
    CompareFlags over = WithTolerance();
    set(over, 1);
    absl::StatusOr<v1::JobSpec> spec = CompareSpecFromFlags(over);
    ASSERT_FALSE(spec.ok()) << flag;
    EXPECT_EQ(spec.status().message().substr(0, flag.size() + 1), flag + ":") << spec.status();
  }
}

TEST(JobFlags, MeasureFlagsReachTheSpec) {
  MeasureFlags f;
  f.model.model = "resnet18";
  f.variant.mode = "per_sample";
  absl::StatusOr<v1::JobSpec> spec = MeasureSpecFromFlags(f);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->measure().workload().model().builtin(), v1::ModelSpec::resnet18);
  EXPECT_EQ(spec->measure().workload().execution_mode(), v1::WorkloadSpec::per_sample);
}

TEST(JobFlags, CalibrateFlagsReachTheSpecAndBadPairsOrRoundsAreNamed) {
  CalibrateFlags f;
  f.measure.run.min_run_time = 0.01;
  f.measure.run.threads = 2;
  f.pairs = 3;
  f.rounds = 5;
  absl::StatusOr<v1::JobSpec> spec = CalibrateSpecFromFlags(f);
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_TRUE(spec->has_calibrate());
  EXPECT_EQ(spec->calibrate().workload().model().builtin(), v1::ModelSpec::linear);  // the reference
  EXPECT_EQ(spec->calibrate().workload().execution_mode(), v1::WorkloadSpec::batch);
  EXPECT_EQ(spec->calibrate().pairs(), 3);
  EXPECT_EQ(spec->calibrate().rounds(), 5);
  EXPECT_DOUBLE_EQ(spec->options().min_run_time_s(), 0.01);
  EXPECT_EQ(spec->options().intra_op_threads(), 2);
  EXPECT_EQ(CalibrateSpecFromFlags(CalibrateFlags{})->calibrate().rounds(), 0);  // not given: the compare default
  EXPECT_EQ(CalibrateSpecFromFlags(CalibrateFlags{})->calibrate().pairs(), kDefaultCalibrationPairs);
  for (int pairs : {0, kMaxCalibrationPairs + 1}) {
    CalibrateFlags bad;
    bad.pairs = pairs;
    const absl::Status s = CalibrateSpecFromFlags(bad).status();
    EXPECT_EQ(s.message().find("--pairs: must be 1..200, got "), 0u) << s;
  }
  for (int rounds : {-1, kMaxRounds + 1}) {
    CalibrateFlags bad;
    bad.rounds = rounds;
    EXPECT_EQ(CalibrateSpecFromFlags(bad).status().message().find("--rounds:"), 0u);
  }
  CalibrateFlags bad_time;
  bad_time.measure.run.min_run_time = -1;
  EXPECT_EQ(CalibrateSpecFromFlags(bad_time).status().message().find("--min-run-time:"), 0u)
      << CalibrateSpecFromFlags(bad_time).status();
}

TEST(LoadJobFile, ReadsTheJsonMapping) {
  absl::StatusOr<v1::JobSpec> spec =
      LoadJobFile(WriteTemp("ok.json", R"({"label": "x", "measure": {"workload": {"model": {"builtin": "linear"}}},
                     "options": {"min_run_time_s": 0.05}})"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->label(), "x");
  EXPECT_DOUBLE_EQ(spec->options().min_run_time_s(), 0.05);
}

TEST(LoadJobFile, BadFilesNameTheFileAndField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"measure": {"workload": {"modle": {}}}})", "modle"},
      {R"({"options": {"min_run_time_s": "fast"}, "measure": {}})", "min_run_time_s"},
      {R"({"label": "no kind"})", "measure or compare"},
      {R"({"measure": )", "bad.json"},
  };
  for (const auto& [json, expected] : cases) {
    absl::StatusOr<v1::JobSpec> spec = LoadJobFile(WriteTemp("bad.json", json));
    ASSERT_FALSE(spec.ok()) << json;
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(spec.status().message().find(expected), std::string::npos) << spec.status();
    EXPECT_NE(spec.status().message().find("bad.json"), std::string::npos) << spec.status();
  }
  EXPECT_EQ(LoadJobFile("/no/such/job.json").status().code(), absl::StatusCode::kNotFound);
}

// The job file the fuzzer found (issue 10): a negative-zero tolerance and a label of NULs.
// The zero is read as +0; the NULs are refused naming the file and the field.
TEST(LoadJobFile, NegativeZeroIsZeroAndControlCharactersAreRefused) {
  const std::string check = R"("check": {"declarative": {"rtol": 0.0001, "atol": -0e15}})";
  const std::string compare = R"("compare": {"baseline": {"model": {"builtin": "linear"}},
                                             "candidate": {"model": {"builtin": "linear"}}, )" +
                              check + "}";
  absl::StatusOr<v1::JobSpec> spec = LoadJobFile(WriteTemp("zero.json", "{" + compare + "}"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->compare().check().declarative().atol(), 0.0);
  EXPECT_FALSE(std::signbit(spec->compare().check().declarative().atol()));

  spec = LoadJobFile(WriteTemp("nul.json", R"({"label": "\u0000\u0000", )" + compare + "}"));
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(spec.status().message().find("nul.json: spec.label: holds control character U+0000 at byte 0"),
            std::string::npos)
      << spec.status();
  spec = LoadJobFile(
      WriteTemp("method.json",
                R"({"measure": {"workload": {"model": {"torchscript": {"path": "m.pt", "method": "f\u001b"}}}}})"));
  EXPECT_NE(spec.status().message().find("method.json: spec.measure.workload.model.torchscript.method: holds control"),
            std::string::npos)
      << spec.status();
}

}  // namespace
}  // namespace torchscan
