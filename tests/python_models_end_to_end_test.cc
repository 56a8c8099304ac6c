// A Python user's own models, end to end: modules saved with torch.jit.script(...).save and a
// torch.jit.freeze + optimize_for_inference copy, inputs saved with torch.save (both made by
// tests/python/make_models.py with the project environment's torch), measured and compared by the real
// torchscan-client against a real torchscand. What load cannot change is asserted: which
// runs are comparable and why, the check and its message, known deltas, the changed settings,
// FLOPs, exit codes. The label is asserted only to follow the guide's rule (label_rule.h).
#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "proto/service.pb.h"
#include "report/report_json.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"
#include "tests/label_rule.h"

namespace torchscan::e2e {
namespace {

const std::string kPython = e2e::ProjectPython();  // the project environment's, with torch

class PythonModels : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(TempDir("python_models"));
    const CommandResult made = e2e::Run(kPython, {Runfile("tests/python/make_models.py"), *dir_}, 120);
    ASSERT_EQ(made.exit_code, 0)
        << "tests/python/make_models.py needs the project environment's torch (scripts/setup.sh) "
        << "(scripts/setup.sh installs it): " << made.err;
  }
  static void TearDownTestSuite() { delete dir_; }

  static std::string File(const std::string& name) { return *dir_ + "/" + name; }
  static std::string* dir_;
};
std::string* PythonModels::dir_ = nullptr;

const v1::SettingChange* Changed(const v1::Comparison& c, const std::string& name) {
  for (const v1::SettingChange& s : c.changed_settings())
    if (s.name() == name) return &s;
  return nullptr;
}

const v1::MetricDelta* Delta(const v1::Comparison& c, const std::string& name) {
  for (const v1::MetricDelta& d : c.deltas())
    if (d.name() == name) return &d;
  return nullptr;
}

TEST_F(PythonModels, TwoModelFilesCompareWithKnownDeltasAndTheRevisionAsAChange) {
  TestDaemon d(TempDir("two_files"));
  const std::string out = TempDir("two_files_out");
  const CommandResult r =
      d.Client({"compare", "--baseline", File("mlp.pt"), "--candidate", File("mlp_optimized.pt"), "--input", "64x256",
                "--rtol", "1e-4", "--atol", "1e-5", "--min-run-time", "0.05", "--output", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->compatibility().compatible()) << c->compatibility().DebugString();
  EXPECT_EQ(c->output_check().status(), v1::OutputCheck::passed) << c->output_check().message();
  EXPECT_EQ(c->output_check().message(),
            "baseline and candidate outputs are close at rtol=0.0001, atol=1e-05, all finite");
  EXPECT_TRUE(LabelFollowsTheGuideRule(*c));
  const v1::MetricDelta* median = Delta(*c, "latency_median");
  ASSERT_NE(median, nullptr);
  EXPECT_TRUE(median->known()) << median->unknown_reason();
  EXPECT_DOUBLE_EQ(median->delta(),
                   c->after().timing().summary().median_s() - c->before().timing().summary().median_s());
  const v1::SettingChange* revision = Changed(*c, "workload.model_revision");
  ASSERT_NE(revision, nullptr) << "the model revision is the change under test";
  EXPECT_EQ(revision->before().rfind("sha256:", 0), 0u);
  EXPECT_NE(revision->before(), revision->after());
  const v1::SettingChange* source = Changed(*c, "workload.model_source");
  ASSERT_NE(source, nullptr);
  EXPECT_NE(source->before().find("mlp.pt"), std::string::npos) << source->before();
  EXPECT_NE(source->after().find("mlp_optimized.pt"), std::string::npos) << source->after();
  // The same inputs on both sides (a private seed per input, independent of the model).
  EXPECT_EQ(c->before().input_metadata().fields().at("input.input0.seed"), "0 (private generator)");
}

TEST_F(PythonModels, ATorchSaveInputFileIsReadAndACallerKeyDecidesComparability) {
  TestDaemon d(TempDir("metadata"));
  std::vector<std::string> reports;
  for (const std::string revision : {"v1", "v2"}) {
    const std::string out = TempDir("metadata_" + revision);
    const CommandResult r =
        d.Client({"measure", "--torchscript", File("mlp.pt"), "--input-file", "x=" + File("x.pt"), "--metadata",
                  "dataset_revision=" + revision, "--min-run-time", "0.02", "--output", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(out + "/report.json");
    ASSERT_TRUE(report.ok()) << report.status();
    ASSERT_EQ(report->input_metadata().tensors_size(), 1);
    EXPECT_EQ(report->input_metadata().tensors(0).name(), "x");
    EXPECT_EQ(report->input_metadata().tensors(0).shape(0), 64);  // from the file
    EXPECT_EQ(report->input_metadata().fields().at("input.x.source"), "tensor file");
    EXPECT_EQ(report->input_metadata().fields().at("dataset_revision"), revision);
    EXPECT_EQ(report->workload().at("input.x.file").rfind(File("x.pt") + " (uploaded, ", 0), 0u)
        << report->workload().at("input.x.file");
    reports.push_back(out + "/report.json");
  }
  const std::string out = TempDir("metadata_compared");
  const CommandResult compared = d.Client({"compare-reports", reports[0], reports[1], "--output", out});
  ASSERT_EQ(compared.exit_code, 0) << compared.err;
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->compatibility().compatible());
  ASSERT_EQ(c->compatibility().mismatches_size(), 1) << c->compatibility().DebugString();
  EXPECT_EQ(c->compatibility().mismatches(0).field(), "input_metadata.fields.dataset_revision");
  EXPECT_EQ(c->latency_change(), v1::Comparison::unavailable);
  EXPECT_NE(compared.out.find("dataset_revision"), std::string::npos) << compared.out;  // the summary names it

  const CommandResult legacy = d.Client(
      {"measure", "--torchscript", File("mlp.pt"), "--input-file", File("x_legacy.pt"), "--min-run-time", "0.02"});
  EXPECT_EQ(legacy.exit_code, 3) << legacy.err;
  EXPECT_NE(legacy.err.find("legacy format"), std::string::npos) << legacy.err;
  EXPECT_NE(legacy.err.find("torch.save(tensor, path)"), std::string::npos) << legacy.err;
}

TEST_F(PythonModels, ACompareWithoutItsCheckIsRefusedNamingTheChoices) {
  TestDaemon d(TempDir("no_check"));
  const CommandResult flags = d.Client({"compare", "--torchscript", File("mlp.pt"), "--input", "64x256"});
  EXPECT_EQ(flags.exit_code, 2) << flags.err;
  EXPECT_NE(flags.err.find("--rtol/--atol"), std::string::npos) << flags.err;
  EXPECT_NE(flags.err.find("--no-check"), std::string::npos) << flags.err;
  const std::string job = TempDir("no_check_job") + "/job.json";
  std::ofstream(job) << R"({"compare": {"baseline": {"model": {"torchscript": {"path": ")" << File("mlp.pt")
                     << R"("}}, "inputs": [{"generated": {"shape": [64, 256]}}]},
      "candidate": {"model": {"torchscript": {"path": ")"
                     << File("mlp_optimized.pt") << R"("}}, "inputs": [{"generated": {"shape": [64, 256]}}]}}})";
  const CommandResult file = d.Client({"compare", "--job", job});
  EXPECT_EQ(file.exit_code, 2) << file.err;
  EXPECT_NE(file.err.find("spec.compare.check: required"), std::string::npos) << file.err;
  EXPECT_TRUE(ListJobs(d).empty());  // nothing was queued
}

TEST_F(PythonModels, ABfloat16CandidatePassesInTheCheckDTypeTheUserChose) {
  TestDaemon d(TempDir("bf16"));
  const std::vector<std::string> bf16 = {
      "compare", "--torchscript", File("mlp.pt"), "--candidate-dtype", "bfloat16", "--input", "64x256", "--rtol",
      "0.05",    "--atol",        "0.05",         "--min-run-time",    "0.02"};
  const std::string out = TempDir("bf16_out");
  const CommandResult passed = d.Client(With(bf16, {"--check-dtype", "float32", "--output", out}));
  ASSERT_EQ(passed.exit_code, 0) << passed.err;
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->output_check().status(), v1::OutputCheck::passed) << c->output_check().message();
  EXPECT_NE(c->output_check().message().find("rtol=0.05, atol=0.05, compared as float32"), std::string::npos)
      << c->output_check().message();
  ASSERT_NE(Changed(*c, "workload.dtype"), nullptr);
  EXPECT_EQ(Changed(*c, "workload.dtype")->after(), "bfloat16");

  const std::string strict = TempDir("bf16_strict");
  const CommandResult failed = d.Client(With(bf16, {"--output", strict}));
  EXPECT_EQ(failed.exit_code, 1) << failed.err;  // a failed check
  absl::StatusOr<v1::Comparison> f = report::LoadComparison(strict + "/comparison.json");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_NE(f->output_check().message().find("dtypes differ: Float (baseline) vs BFloat16 (candidate)"),
            std::string::npos)
      << f->output_check().message();
  EXPECT_NE(f->output_check().message().find("--check-dtype float32"), std::string::npos)
      << f->output_check().message();
}

TEST_F(PythonModels, AnOptimizedCnnCountsTheFlopsOfThePlainOne) {
  TestDaemon d(TempDir("cnn"));
  const std::string out = TempDir("cnn_out");
  const CommandResult r =
      d.Client({"compare", "--torchscript", File("cnn.pt"), "--candidate-optimize-for-inference", "--input",
                "4x3x16x16", "--rtol", "1e-4", "--atol", "1e-5", "--min-run-time", "0.02", "--output", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  // Two convolutions and the linear, 2 x MACs per image, 4 images.
  const double per_image = 2.0 * (16 * 16 * 16 * 3 * 9 + 16 * 16 * 32 * 16 * 9 + 10 * 32 * 16 * 16);
  for (const v1::BenchmarkReport* run : {&c->before(), &c->after()}) {
    const v1::MetricResult& flops = run->profile().flops_per_call();
    EXPECT_TRUE(flops.complete()) << run->name() << ": " << flops.DebugString();
    EXPECT_DOUBLE_EQ(flops.value(), 4 * per_image) << run->name();
  }
  ASSERT_NE(Changed(*c, "workload.optimize_for_inference"), nullptr);
}

// What a user saves by mistake is refused with the file, the flag and the fix: a state_dict as
// a module, before anything is sent (exit 2); a state_dict as an input file, without a
// PyTorch internal assert (exit 3); an optimize_for_inference CNN that PyTorch cannot load
// back, pointing to --candidate-optimize-for-inference.
TEST_F(PythonModels, FilesThatAreNotWhatTheFlagWantsAreNamedWithTheFix) {
  TestDaemon d(TempDir("mistakes"));
  const CommandResult state_dict =
      d.Client({"compare", "--baseline", File("mlp.pt"), "--candidate", File("mlp_state_dict.pt"), "--input", "64x256",
                "--no-check", "--min-run-time", "0.02"});
  EXPECT_EQ(state_dict.exit_code, 2) << state_dict.err;
  EXPECT_NE(state_dict.err.find("mlp_state_dict.pt' holds data saved with torch.save"), std::string::npos)
      << state_dict.err;
  EXPECT_EQ(state_dict.err.find("job-"), std::string::npos) << "refused before submitting: " << state_dict.err;

  const CommandResult as_input = d.Client({"measure", "--torchscript", File("mlp.pt"), "--input-file",
                                           File("mlp_state_dict.pt"), "--min-run-time", "0.02"});
  EXPECT_EQ(as_input.exit_code, 3) << as_input.err;
  EXPECT_NE(as_input.err.find("save one tensor per file"), std::string::npos) << as_input.err;
  EXPECT_EQ(as_input.err.find("report a bug to PyTorch"), std::string::npos) << as_input.err;

  const CommandResult optimized =
      d.Client({"compare", "--baseline", File("cnn.pt"), "--candidate", File("cnn_optimized.pt"), "--input",
                "4x3x16x16", "--no-check", "--min-run-time", "0.02"});
  EXPECT_EQ(optimized.exit_code, 3) << optimized.err;
  for (const std::string& words :
       {std::string("(--candidate)"), File("cnn_optimized.pt"), std::string("--candidate-optimize-for-inference")})
    EXPECT_NE(optimized.err.find(words), std::string::npos) << words << " in " << optimized.err;
  EXPECT_EQ(optimized.err.find("(--torchscript)"), std::string::npos) << optimized.err;
}

}  // namespace
}  // namespace torchscan::e2e
