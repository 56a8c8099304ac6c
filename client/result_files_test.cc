#include "client/result_files.h"

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "io/proto_json.h"
#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan {
namespace {

std::string Write(const std::string& name, const std::string& content) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

bool Has(const absl::Status& s, const std::string& text) {
  return std::string(s.message()).find(text) != std::string::npos;
}

TEST(ResultFiles, AZipIsNamedAsAModuleWithTheCommandThatMeasuresIt) {
  const std::string module = Write("model.pt", std::string("PK\x03\x04\x00\x00model/data.pkl", 20));
  absl::StatusOr<report::Evidence> e = LoadEvidenceForRender(module);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(e.status(), "render: " + module + " is not a report or comparison JSON file (it is a zip archive"));
  EXPECT_TRUE(Has(e.status(), "torchscan-client measure --torchscript " + module)) << e.status();
  EXPECT_FALSE(Has(e.status(), "PK")) << "the file's bytes are echoed: " << e.status();
  absl::StatusOr<v1::BenchmarkReport> r = LoadReportForCompare(module);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.status(), "torchscan-client compare --baseline")) << r.status();
}

TEST(ResultFiles, OtherNonJsonSaysWhatItIs) {
  EXPECT_TRUE(Has(LoadEvidenceForRender(Write("page.html", "<!DOCTYPE html>")).status(), "HTML"));
  EXPECT_TRUE(Has(LoadEvidenceForRender(Write("empty.json", "")).status(), "it is empty"));
  EXPECT_TRUE(Has(LoadEvidenceForRender(Write("bin", std::string("\x01\x02\x03", 3))).status(), "binary data"));
  EXPECT_TRUE(Has(LoadEvidenceForRender(Write("text", "hello")).status(), "text that is not a JSON object"));
}

TEST(ResultFiles, AJobFileIsSentToMeasureJob) {
  const std::string job = Write("job.json", R"({"measure": {"workload": {"model": {"builtin": "linear"}}}})");
  absl::StatusOr<report::Evidence> e = LoadEvidenceForRender(job);
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(
      Has(e.status(), "is a job file (JobSpec), not a result: run it with `torchscan-client measure --job " + job))
      << e.status();
  EXPECT_TRUE(Has(LoadReportForCompare(job).status(), "measure --job"));
}

TEST(ResultFiles, CompareReportsGivenAComparisonSaysToRenderIt) {
  const std::string path = Write("comparison.json", ToJson(fixtures::PassedComparison()));
  absl::StatusOr<v1::BenchmarkReport> r = LoadReportForCompare(path);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.status(), path + " is a comparison, not a report")) << r.status();
  EXPECT_TRUE(Has(r.status(), "torchscan-client render " + path)) << r.status();
}

TEST(ResultFiles, TheRightKindLoads) {
  const std::string report = Write("report.json", ToJson(fixtures::ReportAlone()));
  EXPECT_TRUE(LoadReportForCompare(report).ok());
  absl::StatusOr<report::Evidence> e = LoadEvidenceForRender(report);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_TRUE(std::holds_alternative<v1::BenchmarkReport>(*e));
  // A strict error of the right kind keeps its own words.
  EXPECT_TRUE(Has(LoadReportForCompare(Write("bad.json", R"({"nmae": 1})")).status(), "did you mean name?"));
}

}  // namespace
}  // namespace torchscan
