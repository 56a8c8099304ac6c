#include "report/history_text.h"

#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/fixtures/history_fixtures.h"

namespace torchscan::report {
namespace {

namespace f = fixtures;

HistoryView ThreePoints() { return f::ThreePointView(); }

std::string LineWith(const std::string& text, std::string_view needle) {
  for (absl::string_view line : absl::StrSplit(text, '\n'))
    if (absl::StrContains(line, absl::string_view(needle.data(), needle.size()))) return std::string(line);
  return "";
}

TEST(Sparkline, ExactLevels) {
  EXPECT_EQ(Sparkline({1, 2, 3, 4, 5, 6, 7, 8}, true), "▁▂▃▄▅▆▇█");
  EXPECT_EQ(Sparkline({0, 1, 2, 3, 4}, false), "_.-=#");
  EXPECT_EQ(Sparkline({100, 200, 150}, true), "▁█▅");  // 150: 3.5 of 7 rounds up
  EXPECT_EQ(Sparkline({100, 200, 150}, false), "_#-");
  EXPECT_EQ(Sparkline({5, 5}, true), "▅▅");  // all equal: the middle level
  EXPECT_EQ(Sparkline({5}, false), "-");
  EXPECT_EQ(Sparkline({1, NAN, 2}, false), "_ #");
  EXPECT_EQ(Sparkline({}, true), "");
}

TEST(HistoryText, HeaderSparklineAndTableNewestFirst) {
  const std::string text = RenderHistoryText(ThreePoints(), true);
  EXPECT_TRUE(absl::StartsWith(text, "TorchScan history: resnet18-cpu\n  source   unix:/run/torchscan.sock\n")) << text;
  EXPECT_EQ(LineWith(text, "jobs  "), "  jobs     4 jobs, 3 points (not plotted: 1 failed)");
  EXPECT_EQ(LineWith(text, "dates"), "  dates    2026-01-01 .. 2026-01-03");
  EXPECT_EQ(LineWith(text, "medians"), "  medians  ▁█▅  oldest -> newest, 100.0 µs .. 200.0 µs");  // 160: 4.2 of 7
  // Newest first, the revision cut to 12 characters, change against b, the label and the marker.
  const std::string c = LineWith(text, "job-c");
  EXPECT_TRUE(absl::StrContains(c, "2026-01-03 09:30 UTC  cccccccccccc ")) << c;
  EXPECT_FALSE(absl::StrContains(c, "ccccccccccccc"));
  EXPECT_TRUE(absl::StrContains(c, "200.0 µs  160.0 µs")) << c;  // the baseline's median, then the candidate's
  EXPECT_TRUE(absl::StrContains(c, "-20.0%")) << c;
  EXPECT_TRUE(absl::StrContains(c, "faster")) << c;
  EXPECT_TRUE(absl::StrContains(c, "changed #1")) << c;
  EXPECT_LT(text.find("job-c"), text.find("job-b"));
  EXPECT_LT(text.find("job-b"), text.find("job-a"));
  EXPECT_TRUE(absl::StrContains(LineWith(text, "job-b"), "+100.0%")) << text;
  EXPECT_FALSE(absl::StrContains(LineWith(text, "job-b"), "changed"));
  EXPECT_EQ(LineWith(text, "#1 "), "  #1 job-b -> job-c: BLAS: reference -> openblas");
}

TEST(HistoryText, ASlurmFrontsPointsNameTheirNodes) {
  HistoryView view = ThreePoints();
  for (v1::Job& job : view.jobs)
    if (job.id() == "job-c") job.mutable_summary()->set_node("gpu\x1b[2Jnode7");  // made terminal-safe
  const std::string text = RenderHistoryText(view, true);
  const std::string c = LineWith(text, "job-c");
  EXPECT_TRUE(absl::StrContains(c, "node7, changed #1")) << c;
  EXPECT_FALSE(absl::StrContains(c, "\x1b")) << c;
  EXPECT_FALSE(absl::StrContains(LineWith(text, "job-b"), "node")) << text;  // a job of this machine: no node
}

TEST(HistoryText, JobsThatAreNotPointsShowTheirStateAndNoFigures) {
  const std::string x = LineWith(RenderHistoryText(ThreePoints(), true), "job-x");
  EXPECT_TRUE(absl::StrContains(x, "failed")) << x;
  EXPECT_FALSE(absl::StrContains(x, "µs")) << x;
  EXPECT_FALSE(absl::StrContains(x, "%")) << x;
}

TEST(HistoryText, AsciiOutputHasNoOtherCharacters) {
  const std::string text = RenderHistoryText(ThreePoints(), false);
  EXPECT_EQ(LineWith(text, "medians"), "  medians  _#-  oldest -> newest, 100.0 us .. 200.0 us");
  for (unsigned char ch : text) ASSERT_LT(ch, 0x80) << text;
}

TEST(HistoryText, HostileTextCannotDriveTheTerminal) {
  HistoryView view = ThreePoints();
  view.name = "\x1b[2Jname<script>\"'";
  view.jobs[0].mutable_spec()->set_revision("\x1b]0;title\x07");
  view.jobs[0].mutable_summary()->set_model(
      "m\x9b"
      "31m");
  const std::string text = RenderHistoryText(view, true);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\x07'), std::string::npos);
  EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos);
  EXPECT_TRUE(absl::StrContains(text, "?[2Jname<script>\"'")) << text;
}

TEST(HistoryText, EmptyHistorySaysSo) {
  HistoryView view;
  view.name = "nothing-here";
  view.source = "lab-1:7070";
  EXPECT_EQ(RenderHistoryText(view, true), "TorchScan history: no jobs named \"nothing-here\" at lab-1:7070\n");
}

TEST(HistoryText, OnePoint) {
  HistoryView view;
  view.name = "one";
  view.jobs = {f::PointJob("job-1", "2026-01-01T00:00:00.000Z", "", 2e-3, f::MachineText("openblas"))};
  const std::string text = RenderHistoryText(view, true);
  EXPECT_EQ(LineWith(text, "medians"), "  medians  ▅  oldest -> newest, 2.000 ms .. 2.000 ms");
  EXPECT_EQ(LineWith(text, "dates"), "  dates    2026-01-01 .. 2026-01-01");
  const std::string row = LineWith(text, "job-1");
  EXPECT_TRUE(absl::StrContains(row, " -  ")) << row;  // no revision
  EXPECT_FALSE(absl::StrContains(row, "%")) << row;    // nothing to change from
  EXPECT_FALSE(absl::StrContains(text, "machine changes"));
}

TEST(HistoryText, LongHistoriesListTheNewestRowsAndSparkTheNewestPoints) {
  HistoryView view;
  view.name = "long";
  view.jobs = f::SyntheticHistory(100);  // 90 points
  const std::string text = RenderHistoryText(view, false, 5);
  const std::string medians = LineWith(text, "medians");
  EXPECT_TRUE(absl::StrContains(medians, "(the newest 60 of 90 points)")) << medians;
  EXPECT_EQ(medians.find("  oldest"), std::string("  medians  ").size() + kMaxSparklinePoints) << medians;
  EXPECT_TRUE(absl::StrContains(text, "(the newest 5 of 100 jobs listed)")) << text;
  EXPECT_TRUE(absl::StrContains(text, "job-000100"));
  EXPECT_TRUE(absl::StrContains(text, "job-000096"));
  EXPECT_FALSE(absl::StrContains(text, "job-000095 "));
  // The machine change at the half is still named below the table.
  EXPECT_TRUE(absl::StrContains(text, "#1 job-000049 -> job-000051: BLAS: reference -> openblas")) << text;
}

}  // namespace
}  // namespace torchscan::report
