#include "client/job_flags.h"

#include <cmath>
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

namespace torchscan {
namespace {

TEST(JobFlags, ExampleDefaultsArePerSampleVersusBatchWithTheGuideTolerances) {
  absl::StatusOr<v1::JobSpec> spec = CompareSpecFromFlags(CompareFlags{});
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

TEST(JobFlags, CompareFlagsReachTheSpec) {
  CompareFlags f;
  f.model.model = "bert";
  f.run.threads = 2;
  f.run.min_run_time = 1;
  f.run.rss = true;
  f.reverse = true;
  f.no_check = true;
  absl::StatusOr<v1::JobSpec> spec = CompareSpecFromFlags(f);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->compare().candidate().model().builtin(), v1::ModelSpec::bert);
  EXPECT_TRUE(spec->compare().reverse());
  EXPECT_TRUE(spec->compare().check().skip());
  EXPECT_EQ(spec->options().intra_op_threads(), 2);
  EXPECT_TRUE(spec->options().rss());
}

TEST(JobFlags, EachBadFlagIsNamed) {
  const std::vector<std::pair<std::function<void(CompareFlags&)>, std::string>> cases = {
      {[](CompareFlags& f) { f.model.model = "gpt2"; }, "--model"},
      {[](CompareFlags& f) { f.model.model = "builtin_unspecified"; }, "--model"},
      {[](CompareFlags& f) { f.run.threads = 0; }, "--threads"},
      {[](CompareFlags& f) { f.run.min_run_time = -1; }, "--min-run-time"},
      {[](CompareFlags& f) { f.run.min_run_time = std::nan(""); }, "--min-run-time"},
      {[](CompareFlags& f) { f.candidate_mode = "turbo"; }, "--candidate-mode"},
      {[](CompareFlags& f) { f.candidate_dtype = "int8"; }, "--candidate-dtype"},
      {[](CompareFlags& f) { f.rtol = -1; }, "--rtol"},
      {[](CompareFlags& f) { f.atol = std::nan(""); }, "--atol"},
      {[](CompareFlags& f) { f.model.method = "forward"; }, "--method"},
      {[](CompareFlags& f) { f.model.torchscript = "/no/such/module.pt"; }, "--torchscript"},
      {[](CompareFlags& f) { f.check_module = "/no/such/check.pt"; }, "--check-module"},
      {[](CompareFlags& f) { f.rounds = 0; }, "--rounds"},
      {[](CompareFlags& f) { f.check_module = "/x.pt"; f.no_check = true; }, "--check-module"},
  };
  for (const auto& [mutate, flag] : cases) {
    CompareFlags f;
    mutate(f);
    absl::StatusOr<v1::JobSpec> spec = CompareSpecFromFlags(f);
    ASSERT_FALSE(spec.ok()) << flag;
    EXPECT_EQ(spec.status().message().substr(0, flag.size()), flag) << spec.status();
  }
}

TEST(JobFlags, MeasureFlagsReachTheSpec) {
  MeasureFlags f;
  f.model.model = "resnet18";
  f.execution_mode = "per_sample";
  absl::StatusOr<v1::JobSpec> spec = MeasureSpecFromFlags(f);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->measure().workload().model().builtin(), v1::ModelSpec::resnet18);
  EXPECT_EQ(spec->measure().workload().execution_mode(), v1::WorkloadSpec::per_sample);
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(LoadJobFile, ReadsTheJsonMapping) {
  absl::StatusOr<v1::JobSpec> spec = LoadJobFile(WriteTemp(
      "ok.json", R"({"label": "x", "measure": {"workload": {"model": {"builtin": "linear"}}},
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
                                             "candidate": {"model": {"builtin": "linear"}}, )" + check + "}";
  absl::StatusOr<v1::JobSpec> spec = LoadJobFile(WriteTemp("zero.json", "{" + compare + "}"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->compare().check().declarative().atol(), 0.0);
  EXPECT_FALSE(std::signbit(spec->compare().check().declarative().atol()));

  spec = LoadJobFile(WriteTemp("nul.json", R"({"label": "\u0000\u0000", )" + compare + "}"));
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(spec.status().message().find("nul.json: spec.label: holds control character U+0000 at byte 0"),
            std::string::npos)
      << spec.status();
  spec = LoadJobFile(WriteTemp(
      "method.json", R"({"measure": {"workload": {"model": {"torchscript": {"path": "m.pt", "method": "f\u001b"}}}}})"));
  EXPECT_NE(spec.status().message().find("method.json: spec.measure.workload.model.torchscript.method: holds control"),
            std::string::npos)
      << spec.status();
}

}  // namespace
}  // namespace torchscan
