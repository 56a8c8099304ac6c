// AOTInductor packages (.pt2) end to end (issue 42): packages compiled by the project
// environment's torch (tests/python/make_packages.py), measured and compared by the real
// torchscan-client through a real torchscand whose workers run sandboxed (--sandbox
// namespaces: the package is unpacked and dlopened inside the job's private /tmp). Asserted
// what load cannot change: exit codes, the output check, the file's SHA-256 and description,
// and the refusals with their reasons.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/file_io.h"
#include "io/proto_json.h"
#include "io/zip_names.h"
#include "proto/service.pb.h"
#include "report/report_json.h"
#include "tests/access_fixtures.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"

namespace torchscan::e2e {
namespace {

class AotInductor : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(TempDir("packages"));
    const CommandResult made = e2e::Run(ProjectPython(), {Runfile("tests/python/make_packages.py"), *dir_}, 900);
    ASSERT_EQ(made.exit_code, 0) << "tests/python/make_packages.py needs the project environment's torch, g++ and "
                                 << "OpenMP (scripts/setup.sh): " << made.err;
    place_ = new Placement(OpenPlacement("aot-inductor"));
    daemon_ = new TestDaemon(place_->state_dir, With(place_->flags, {"--sandbox", "namespaces"}));
  }
  static void TearDownTestSuite() {
    delete daemon_;
    delete place_;
    delete dir_;
  }

  static std::string File(const std::string& name) { return *dir_ + "/" + name; }
  static const TestDaemon& Daemon() { return *daemon_; }
  static std::string* dir_;
  static Placement* place_;
  static TestDaemon* daemon_;
};
std::string* AotInductor::dir_ = nullptr;
Placement* AotInductor::place_ = nullptr;
TestDaemon* AotInductor::daemon_ = nullptr;

const std::vector<std::string> kMeasure = {"--min-run-time", "0.02"};
const std::vector<std::string> kShort = {"--min-run-time", "0.02", "--max-time", "8"};

TEST_F(AotInductor, APackageIsMeasuredWithItsMemoryAndNamedByItsFileAndSha256) {
  const std::string out = TempDir("measure_out");
  const CommandResult r =
      Daemon().Client(With({"measure", "--torchscript", File("linear.pt2"), "--input", "8x64", "--output", out},
                           {"--min-run-time", "0.02", "--rss"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(out + "/report.json");
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->model(), "linear.pt2");
  EXPECT_GT(report->timing().summary().median_s(), 0);
  const auto& w = report->workload();
  EXPECT_EQ(w.at("model"), "aot_inductor");
  EXPECT_EQ(w.at("aot_inductor.device"), "cpu");
  EXPECT_EQ(w.at("aot_inductor.outputs"), "tensor");
  const CommandResult sum = e2e::Run("/usr/bin/sha256sum", {File("linear.pt2")}, 30);
  ASSERT_EQ(sum.exit_code, 0);
  EXPECT_EQ(w.at("model_revision"), "sha256:" + sum.out.substr(0, 64));
  EXPECT_EQ(w.at("model_source").rfind(File("linear.pt2") + " (uploaded, ", 0), 0u) << w.at("model_source");
  // Peak RSS in a fresh child (which builds the package again) and tensor memory, as for any model.
  std::set<std::string> memory;
  for (const v1::MetricResult& total : report->totals())
    if (total.has_value() && total.value() > 0) memory.insert(total.name());
  EXPECT_TRUE(memory.count("peak_rss_bytes") && memory.count("tensor_peak_bytes")) << report->DebugString();
  // Its kernels are out of the profiler's sight: the FLOPs it saw are a lower bound, said so.
  const v1::MetricResult& flops = report->profile().flops_per_call();
  EXPECT_FALSE(flops.complete());
  ASSERT_GT(flops.diagnostics_size(), 0);
  EXPECT_NE(flops.diagnostics(flops.diagnostics_size() - 1).find("run outside the operator dispatcher"),
            std::string::npos)
      << flops.DebugString();
  // Without kernel markers the matrix product is not in the profile at all, and the note says
  // how to see it.
  for (const v1::OperatorStat& op : report->profile().operators()) EXPECT_NE(op.name(), "aoti_torch_cpu_addmm_out");
  EXPECT_NE(report->profile().note().find("cpp.enable_kernel_profile"), std::string::npos) << report->profile().note();
}

// A package compiled with kernel markers: its compiled kernel and its call into LibTorch's
// matrix product show in the profile by name, named as markers, their FLOPs still uncounted.
TEST_F(AotInductor, KernelMarkersShowTheCompiledKernelsInTheProfile) {
  const std::string out = TempDir("markers_out");
  const CommandResult r = Daemon().Client(
      With({"measure", "--torchscript", File("linear_markers.pt2"), "--input", "8x64", "--output", out}, kMeasure));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(out + "/report.json");
  ASSERT_TRUE(report.ok()) << report.status();
  std::set<std::string> names;
  for (const v1::OperatorStat& op : report->profile().operators()) names.insert(op.name());
  EXPECT_TRUE(names.count("aoti_torch_cpu_addmm_out")) << report->profile().DebugString();
  const v1::MetricResult& flops = report->profile().flops_per_call();
  EXPECT_FALSE(flops.complete());
  EXPECT_NE(flops.diagnostics(flops.diagnostics_size() - 1).find("kernel marker"), std::string::npos)
      << flops.DebugString();
  for (const std::string& line : flops.diagnostics())
    EXPECT_EQ(line.find("aoti_torch_cpu_addmm_out: no FLOP"), std::string::npos);
}

// Compiled against uncompiled, and compiled against compiled: the output check passes for a
// tensor and for a dict holding a tuple, put back from the package's flat outputs.
TEST_F(AotInductor, APackageComparesWithItsTorchScriptTwinAndWithAnotherPackage) {
  for (const auto& [baseline, candidate, input] :
       std::vector<std::tuple<std::string, std::string, std::vector<std::string>>>{
           {"linear.pt", "linear.pt2", {"--input", "8x64"}},
           {"two_inputs.pt", "two_inputs.pt2", {"--input", "x=4x16", "--input", "y=4x16"}},
           {"cnn.pt2", "cnn.pt2", {"--input", "2x3x8x8"}}}) {
    const std::string out = TempDir("compare_" + candidate);
    const CommandResult r =
        Daemon().Client(With(With({"compare", "--baseline", File(baseline), "--candidate", File(candidate), "--rtol",
                                   "1e-4", "--atol", "1e-5", "--output", out},
                                  input),
                             kShort));
    ASSERT_EQ(r.exit_code, 0) << baseline << " vs " << candidate << ": " << r.err;
    absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->output_check().status(), v1::OutputCheck::passed)
        << baseline << " vs " << candidate << ": " << c->output_check().message();
    EXPECT_TRUE(c->compatibility().compatible()) << c->compatibility().DebugString();
    if (baseline != "linear.pt") continue;
    // The package's FLOPs are the uncompiled twin's, carried and named: Linear(64, 32) on 8 rows.
    const v1::MetricResult& flops = c->after().profile().flops_per_call();
    EXPECT_DOUBLE_EQ(c->before().profile().flops_per_call().value(), 2.0 * 8 * 64 * 32);
    EXPECT_DOUBLE_EQ(flops.value(), 2.0 * 8 * 64 * 32);
    EXPECT_TRUE(flops.complete());
    ASSERT_EQ(flops.diagnostics_size(), 1);
    EXPECT_NE(flops.diagnostics(0).find("carried from the baseline (linear.pt)"), std::string::npos)
        << flops.diagnostics(0);
  }
}

TEST_F(AotInductor, APackageWithOtherWeightsFailsTheOutputCheck) {
  const std::string out = TempDir("other_out");
  const CommandResult r =
      Daemon().Client(With({"compare", "--baseline", File("linear.pt2"), "--candidate", File("linear_other.pt2"),
                            "--input", "8x64", "--rtol", "1e-4", "--atol", "1e-5", "--output", out},
                           kShort));
  EXPECT_EQ(r.exit_code, 1) << r.err;  // a failed check
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->output_check().status(), v1::OutputCheck::failed) << c->output_check().message();
}

// What cannot run is refused with the file and the reason: before sending (exit 2) what the
// client can read itself, in the worker (exit 3) what only LibTorch can tell.
TEST_F(AotInductor, WhatIsNoRunnablePackageIsRefusedNamingTheFileAndTheFix) {
  const CommandResult corrupt =
      Daemon().Client(With({"measure", "--torchscript", File("corrupt.pt2"), "--input", "8x64"}, kMeasure));
  EXPECT_EQ(corrupt.exit_code, 2) << corrupt.err;
  EXPECT_NE(corrupt.err.find("corrupt.pt2' is not a TorchScript module or an AOTInductor package"), std::string::npos)
      << corrupt.err;

  const CommandResult exported =
      Daemon().Client(With({"measure", "--torchscript", File("exported.pt2"), "--input", "8x64"}, kMeasure));
  EXPECT_EQ(exported.exit_code, 2) << exported.err;
  EXPECT_NE(exported.err.find("exported program saved with torch.export.save"), std::string::npos) << exported.err;
  EXPECT_NE(exported.err.find("aoti_compile_and_package"), std::string::npos) << exported.err;

  const CommandResult bf16 = Daemon().Client(With({"compare", "--torchscript", File("linear.pt2"), "--candidate-dtype",
                                                   "bfloat16", "--input", "8x64", "--no-check"},
                                                  kShort));
  EXPECT_EQ(bf16.exit_code, 2) << bf16.err;
  EXPECT_NE(bf16.err.find("does not apply to an AOTInductor package"), std::string::npos) << bf16.err;

  const CommandResult cuda =
      Daemon().Client(With({"measure", "--torchscript", File("claims_cuda.pt2"), "--input", "8x64"}, kMeasure));
  EXPECT_EQ(cuda.exit_code, 3) << cuda.err;
  EXPECT_NE(cuda.err.find("claims_cuda.pt2': the package was compiled for cuda and this job runs on cpu; set the "
                          "job's device to cuda, or compile the model for cpu"),
            std::string::npos)
      << cuda.err;

  const CommandResult shape =
      Daemon().Client(With({"measure", "--torchscript", File("linear.pt2"), "--input", "16x64"}, kMeasure));
  EXPECT_EQ(shape.exit_code, 3) << shape.err;
  EXPECT_NE(shape.err.find("unmatched dim value at 0, expected: 8, but got: 16"), std::string::npos) << shape.err;
}

// The folders named as mkdtemp names them in /tmp that hold `entry`.
std::set<std::string> TmpFoldersHolding(const std::string& entry) {
  std::set<std::string> found;
  for (const auto& it : std::filesystem::directory_iterator("/tmp")) {
    std::error_code error;
    if (it.path().filename().string().size() == 6 && std::filesystem::exists(it.path() / entry, error))
      found.insert(it.path().string());
  }
  return found;
}

// Without a sandbox the worker's /tmp is the host's: LibTorch's loader unpacks there and, when
// its library does not load, leaves the folder (workloads/unpacked_folders.h); the worker
// removes it.
TEST_F(AotInductor, WithoutASandboxAFailedLoadLeavesNothingInTmp) {
  absl::StatusOr<std::string> bytes = ReadFile(File("bad_library.pt2"));
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<std::vector<std::string>> names = ZipEntryNames(*bytes);
  ASSERT_TRUE(names.ok()) << names.status();
  std::string library;
  for (const std::string& name : *names)
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0) library = name;
  ASSERT_FALSE(library.empty());
  const std::set<std::string> before = TmpFoldersHolding(library);

  const Placement open = OpenPlacement("aot-inductor-open");
  TestDaemon daemon(open.state_dir, With(open.flags, {"--sandbox", "off"}));
  const CommandResult r =
      daemon.Client(With({"measure", "--torchscript", File("bad_library.pt2"), "--input", "8x64"}, kMeasure));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("dlopen"), std::string::npos) << r.err;
  EXPECT_EQ(TmpFoldersHolding(library), before);
}

// A package goes where any model goes: a calibration's A/A pairs (each pair a fresh worker that
// builds the package twice), and a benchmark's history with a comparison of two revisions.
TEST_F(AotInductor, CalibrateAndHistoryTakeAPackage) {
  const std::string cal_out = TempDir("calibrate_out");
  const CommandResult cal =
      Daemon().Client(With({"calibrate", "--torchscript", File("linear.pt2"), "--input", "8x64", "--pairs", "2",
                            "--rounds", "3", "--min-run-time", "0.01", "--output", cal_out},
                           {}));
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  v1::Calibration calibration;
  ASSERT_TRUE(LoadJsonStrict(cal_out + "/calibration.json", &calibration).ok());
  EXPECT_EQ(calibration.pairs_size(), 2);
  EXPECT_EQ(calibration.noise_floor().workload().rfind("linear.pt2 (", 0), 0u)
      << calibration.noise_floor().ShortDebugString();

  for (const std::string revision : {"r1", "r2"}) {
    const CommandResult r =
        Daemon().Client(With({"measure", "--torchscript", File("linear.pt2"), "--input", "8x64", "--label",
                              "package-bench", "--revision", revision, "--output", TempDir("history_" + revision)},
                             kMeasure));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const CommandResult listed = Daemon().Client(With({"--json", "history", "package-bench", "--table-only"}, {}));
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  v1::HistoryResponse history;
  ASSERT_TRUE(ParseJsonStrict(listed.out, "history --json", &history).ok()) << listed.out;
  ASSERT_EQ(history.jobs_size(), 2);
  for (const v1::Job& job : history.jobs()) EXPECT_GT(job.summary().latency().median_s(), 0);
  const std::string against = TempDir("history_against");
  const CommandResult compared =
      Daemon().Client(With({"history", "package-bench", "--against", "r1", "--output", against}, {}));
  ASSERT_EQ(compared.exit_code, 0) << compared.err;
  EXPECT_TRUE(std::filesystem::exists(against + "/comparison.json")) << compared.err;
}

}  // namespace
}  // namespace torchscan::e2e
