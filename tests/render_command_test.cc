// `torchscan-client render` in a real process (no daemon): saved comparisons whose numbers are
// withheld (a failed output check, runs that are not comparable) are refused as Google
// Benchmark JSON with exit 2, a message saying why and the command that exports one run;
// `--run` renders one run as a plain report in any format; the other formats render and
// CSV carries the check status and comparability on every row. The formats its help, its
// error for an unknown --format and README.md's command table list are the registry's.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/proto_json.h"
#include "report/render_by_format.h"
#include "tests/e2e_support.h"
#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::e2e {
namespace {

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

size_t Count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

CommandResult Render(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"render"};
  all.insert(all.end(), args.begin(), args.end());
  return Run(Runfile("client/torchscan-client"), all, 60);
}

std::string Save(const std::string& dir, const std::string& name, const google::protobuf::Message& message) {
  const std::string path = dir + "/" + name;
  EXPECT_TRUE(SaveJson(message, path).ok()) << path;
  return path;
}

// The text of `line` from `end` back to the column gap (two spaces) before it.
std::string BackToGap(const std::string& line, size_t end) {
  const size_t gap = line.rfind("  ", end);
  return gap == std::string::npos ? "" : line.substr(gap + 2, end - gap - 2);
}

TEST(RenderCommand, HelpListsExactlyTheRegisteredFormats) {
  const CommandResult help = Render({"--help"});
  ASSERT_EQ(help.exit_code, 0) << help.err;
  const size_t option = help.out.find("--format");
  ASSERT_NE(option, std::string::npos) << help.out;
  const std::string line = help.out.substr(option, help.out.find('\n', option) - option);
  const size_t note = line.find(" (gbench refuses");
  ASSERT_NE(note, std::string::npos) << line;
  EXPECT_EQ(BackToGap(line, note), report::RenderFormatList(" | ")) << line;
  ASSERT_GE(report::RenderFormats().size(), 2u);
}

TEST(RenderCommand, AnUnknownFormatIsRefusedNamingExactlyTheRegisteredFormats) {
  const std::string dir = TempDir("render_unknown_format");
  const std::string path = Save(dir, "report.json", fixtures::ReportAlone());
  const CommandResult r = Render({path, "--format", "xml"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(
      Has(r.err, "--format: unknown format \"xml\"; accepted formats: " + report::RenderFormatList(", ") + "\n"))
      << r.err;
  EXPECT_EQ(r.out, "");
}

// README.md's command table: `render ... [--format A\|B\|...]` names the registry's formats.
TEST(RenderCommand, ReadmeListsExactlyTheRegisteredFormats) {
  const std::string readme = Slurp(Runfile("README.md"));
  const size_t row = readme.find("| `render IN.json");
  ASSERT_NE(row, std::string::npos) << "README.md has no row for `render IN.json ...`";
  const std::string start = "[--format ";
  const size_t from = readme.find(start, row);
  ASSERT_NE(from, std::string::npos);
  const size_t to = readme.find(']', from);
  std::string listed = readme.substr(from + start.size(), to - from - start.size());
  for (size_t at = listed.find("\\|"); at != std::string::npos; at = listed.find("\\|", at)) listed.erase(at, 1);
  EXPECT_EQ(listed, report::RenderFormatList("|"));
}

TEST(RenderCommand, GbenchOfAFailedCheckIsRefusedWithTheWayOut) {
  const std::string dir = TempDir("render_failed");
  const std::string path = Save(dir, "comparison.json", fixtures::FailedCheckComparison());
  const CommandResult r = Render({path, "--format", "gbench", "-o", dir + "/out.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "--format gbench: "));
  EXPECT_TRUE(Has(r.err, "the output check failed (max abs diff 0.5 exceeds atol 1e-05 (rtol 1e-04))")) << r.err;
  EXPECT_TRUE(Has(r.err, "exported one by one")) << r.err;
  EXPECT_TRUE(Has(r.err, "torchscan-client render " + path + " --run before --format gbench")) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(std::filesystem::exists(dir + "/out.json"));
}

TEST(RenderCommand, GbenchOfRunsThatAreNotComparableNamesTheMismatchedFields) {
  const std::string dir = TempDir("render_incompatible");
  const std::string path = Save(dir, "comparison.json", fixtures::IncompatibleComparison());
  const CommandResult r = Render({path, "--format", "gbench"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Has(r.err,
                  "the runs are not comparable (environment.cpu_model (AMD EPYC 7B13 vs Intel(R) Xeon(R) Gold "
                  "6338), environment.libtorch_version (1.13.1 vs 2.1.0)"))
      << r.err;
  EXPECT_TRUE(Has(r.err, "--run before --format gbench")) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(RenderCommand, OneRunOfAWithheldComparisonExportsAsAPlainReport) {
  const std::string dir = TempDir("render_one_run");
  const std::string path = Save(dir, "comparison.json", fixtures::FailedCheckComparison());
  const CommandResult before = Render({path, "--run", "before", "--format", "gbench"});
  EXPECT_EQ(before.exit_code, 0) << before.err;
  EXPECT_EQ(Count(before.out, "\"name\": \"baseline\""), 12u) << before.out.substr(0, 600);
  EXPECT_FALSE(Has(before.out, "candidate"));

  // By name, in another format, written to a file: the same run as a plain report.
  const CommandResult after = Render({path, "--run", "candidate", "--format", "csv", "-o", dir + "/after.csv"});
  EXPECT_EQ(after.exit_code, 0) << after.err;
  const std::string csv = Slurp(dir + "/after.csv");
  EXPECT_EQ(Count(csv, "\ncandidate,"), 12u) << csv;
  EXPECT_EQ(Count(csv, ",n/a,n/a,n/a,,n/a\n"), 12u) << csv;

  const CommandResult terminal = Render({path, "--run", "after", "--format", "terminal"});
  EXPECT_EQ(terminal.exit_code, 0) << terminal.err;
  EXPECT_EQ(terminal.out.rfind("TorchScan report: candidate\n", 0), 0u) << terminal.out;
}

TEST(RenderCommand, AnUnknownRunOrARunOfAReportIsBadInputNamingRun) {
  const std::string dir = TempDir("render_bad_run");
  const std::string comparison = Save(dir, "comparison.json", fixtures::PassedComparison());
  const CommandResult unknown = Render({comparison, "--run", "middle"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(Has(unknown.err, "--run middle: " + comparison +
                                   ": no run named \"middle\"; choose before "
                                   "(\"baseline\") or after (\"candidate\")"))
      << unknown.err;
  const CommandResult hostile = Render({Save(dir, "hostile.json", fixtures::HostileComparison()), "--run", "x"});
  EXPECT_EQ(hostile.exit_code, 2);
  EXPECT_TRUE(Has(hostile.err, "?[2J")) << hostile.err;  // the run names are quoted, made terminal-safe
  EXPECT_FALSE(Has(hostile.err, "\x1b"));
  const std::string report = Save(dir, "report.json", fixtures::ReportAlone());
  const CommandResult single = Render({report, "--run", "before"});
  EXPECT_EQ(single.exit_code, 2);
  EXPECT_TRUE(Has(single.err, "--run before: " + report + ": the file holds a single report")) << single.err;
}

TEST(RenderCommand, OtherFormatsRenderAWithheldComparisonAndCsvSaysWhy) {
  const std::string dir = TempDir("render_other_formats");
  const std::string failed = Save(dir, "failed.json", fixtures::FailedCheckComparison());
  for (const char* format : {"html", "terminal", "markdown", "csv"}) {
    const CommandResult r = Render({failed, "--format", format});
    EXPECT_EQ(r.exit_code, 0) << format << ": " << r.err;
    EXPECT_FALSE(r.out.empty()) << format;
  }
  EXPECT_EQ(
      Count(Render({failed, "--format", "csv"}).out, ",failed,compatible,,,No speed verdict: the output check failed"),
      24u);
  const std::string incompatible = Save(dir, "incompatible.json", fixtures::IncompatibleComparison());
  EXPECT_EQ(Count(Render({incompatible, "--format", "csv"}).out, ",passed,not comparable,environment.cpu_model; "),
            24u);
}

}  // namespace
}  // namespace torchscan::e2e
