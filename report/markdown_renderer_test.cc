#include "report/markdown_renderer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::report {
namespace {

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Cells of a table row, split at pipes that Markdown does not see as escaped.
int Cells(const std::string& row) {
  int pipes = 0;
  for (size_t i = 0; i < row.size(); ++i) pipes += row[i] == '|' && (i == 0 || row[i - 1] != '\\');
  return pipes - 1;
}

TEST(MarkdownRenderer, ComparisonForAPullRequest) {
  const std::string md = MarkdownRenderer(/*details=*/true).Render(fixtures::PassedComparison());
  EXPECT_EQ(md.rfind("### TorchScan: baseline \u2192 candidate (execution\\_mode per-sample forwards + torch.stack "
                     "\u2192 one batched forward)\n",
                     0),
            0u);
  EXPECT_TRUE(Has(md, "- **Output check:** passed \u2014 assert\\_close(rtol=1e-4, atol=1e-5)\n"));
  EXPECT_TRUE(
      Has(md, "- **Latency change:** faster \u2014 median change -92.4%, more than the IQR 5.2% of the median\n"));
  EXPECT_FALSE(Has(md, "Mann-Whitney p"));  // no bare p-value beside the label
  EXPECT_TRUE(Has(md,
                  "- **Paired rounds:** no claim \u2014 no timing rounds to pair: the runs were timed in a single "
                  "pass\n"));
  EXPECT_TRUE(Has(md, "| before: baseline | 211.0 µs | 11.00 µs | 151.7 k samples/s | 12 |\n"));
  EXPECT_TRUE(Has(md, "| latency\\_median | 211.0 µs | 16.10 µs | -194.9 µs | 0.0763× |  |\n"));
  EXPECT_TRUE(Has(md, "| workload.execution\\_mode | per-sample forwards + torch.stack | one batched forward |\n"));
  EXPECT_TRUE(Has(md, "<details><summary>Environment and inputs</summary>"));
}

// Without --details: a merge-request comment. No HTML at all (the escaped evidence has none
// either), under 40 lines even for the largest fixture, and the machine in one line; the
// verdict, check, runs and deltas as with --details, which only adds to it.
TEST(MarkdownRenderer, TheCommentIsShortPlainMarkdownAndDetailsOnlyAddToIt) {
  const std::vector<std::pair<std::string, v1::Comparison>> cases = {
      {"passed", fixtures::PassedComparison()},      {"rounds", fixtures::RoundsComparison()},
      {"failed", fixtures::FailedCheckComparison()}, {"incompatible", fixtures::IncompatibleComparison()},
      {"hostile", fixtures::HostileComparison()},    {"large", fixtures::LargeComparison(10000, 1000)},
      {"busy", fixtures::BusyBaselineComparison()},
  };
  for (const auto& [name, c] : cases) {
    const std::string md = MarkdownRenderer().Render(c), full = MarkdownRenderer(/*details=*/true).Render(c);
    EXPECT_EQ(md.find('<'), std::string::npos) << name << "\n" << md;
    EXPECT_LE(std::count(md.begin(), md.end(), '\n'), 40) << name << "\n" << md;
    EXPECT_EQ(full.rfind(md, 0), 0u) << name << ": --details must only add after the comment";
    EXPECT_TRUE(Has(md, "- **Machine")) << name << "\n" << md;
  }
  const std::string md = MarkdownRenderer().Render(fixtures::PassedComparison());
  EXPECT_TRUE(Has(md, "- **Machine:** AMD EPYC 7B13, LibTorch 1.13.1, BLAS ")) << md;
  EXPECT_TRUE(Has(md, "| before: baseline | 211.0 µs | 11.00 µs | 151.7 k samples/s | 12 |\n"));
  EXPECT_TRUE(Has(MarkdownRenderer().Render(fixtures::IncompatibleComparison()), "- **Machine of after: "))
      << "differing machines get a line each";
  v1::Comparison with_floor = fixtures::PassedComparison();
  *with_floor.mutable_noise_floor() = fixtures::NoiseFloor();
  EXPECT_TRUE(Has(MarkdownRenderer().Render(with_floor), "- **Noise floor (not used for the label):** "));
}

TEST(MarkdownRenderer, TheVerdictSentenceLeadsInBold) {
  const std::string out = MarkdownRenderer().Render(fixtures::RoundsComparison());
  EXPECT_EQ(out.rfind("### TorchScan: baseline \u2192 candidate (execution\\_mode per-sample forwards + torch.stack "
                      "\u2192 one batched forward)\n\n**49.5% faster (90.0% interval 48.0% to 50.5%); "
                      "larger than the runs' spread (",
                      0),
            0u)
      << out;
}

TEST(MarkdownRenderer, ComparisonShowsItsTimingPlanWhenRecorded) {
  const v1::Comparison c = fixtures::InterleavedComparison();
  EXPECT_NE(MarkdownRenderer().Render(c).find("- **Timing plan:** 10 alternating rounds"), std::string::npos);
  EXPECT_EQ(MarkdownRenderer().Render(fixtures::PassedComparison()).find("Timing plan"), std::string::npos);
}

TEST(MarkdownRenderer, HeadingCarriesTheLabelAndModels) {
  v1::Comparison c = fixtures::PassedComparison();
  c.mutable_before()->set_label("mlp v1");
  c.mutable_after()->set_label("mlp v2");
  c.mutable_after()->set_model("mlp_opt.pt");
  const std::string md = MarkdownRenderer().Render(c);
  EXPECT_EQ(md.rfind("### TorchScan: mlp v1 \u2192 mlp v2 (mlp\\_opt.pt) (execution\\_mode per-sample forwards + "
                     "torch.stack \u2192 one batched forward)\n",
                     0),
            0u)
      << md;
}

TEST(MarkdownRenderer, FailedCheckOpensWithAWarningAndShowsNoLabelOrDelta) {
  for (const v1::Comparison& c : {fixtures::FailedCheckComparison(), fixtures::TamperedFailedComparison()}) {
    const std::string md = MarkdownRenderer().Render(c);
    EXPECT_TRUE(Has(md, "\n\n> **\u274c Output check failed:** max abs diff 0.5 exceeds atol 1e-05 (rtol 1e-04)\n"));
    EXPECT_TRUE(Has(md, "- **Latency change:** withheld \u2014 because the output check failed\n"));
    for (const char* text : {"faster", "slower", "within", "×", "-194.9", "-92.4%", "Mann-Whitney", "Paired", "claim"})
      EXPECT_FALSE(Has(md, text)) << text;
  }
}

TEST(MarkdownRenderer, PairedRoundsShowTheirClaimBesideTheLabel) {
  const std::string md = MarkdownRenderer().Render(fixtures::RoundsComparison());
  EXPECT_TRUE(Has(md, "- **Paired rounds:** 49.5% faster \u2014 90.0% interval 48.0% to 50.5%\n")) << md;
}

TEST(MarkdownRenderer, UnknownDeltasKeepTheirReasons) {
  const std::string md = MarkdownRenderer().Render(fixtures::UnknownDeltasComparison());
  EXPECT_TRUE(Has(md, "| rss\\_peak\\_bytes | 412.5 MiB | - | unknown |  | missing in the after report |\n"));
  EXPECT_TRUE(Has(md,
                  "| flops\\_per\\_call | 1.049 MFLOP | 1.049 MFLOP | unknown |  | incomplete in the after report (a "
                  "lower bound) |\n"));
}

TEST(MarkdownRenderer, HostileStringsStayTextAndKeepTablesIntact) {
  const std::string md = MarkdownRenderer(/*details=*/true).Render(fixtures::HostileComparison());
  EXPECT_FALSE(Has(md, "<script"));
  EXPECT_FALSE(Has(md, "<b>"));
  EXPECT_FALSE(Has(md, "\x1b"));
  EXPECT_TRUE(Has(md, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; \"quotes\" 'single' \\| \\*md\\* \\_x\\_"));
  // Two tables: the runs (5 columns; header and two runs) and the timeline (3 columns;
  // header and two phases). Every row keeps its table's cells.
  std::istringstream lines(md);
  std::vector<int> rows, columns;
  bool in_table = false;
  for (std::string line; std::getline(lines, line);) {
    const bool row = line.rfind("| ", 0) == 0;
    if (row && !in_table) {
      rows.push_back(0);
      columns.push_back(Cells(line));
    }
    in_table = row || line.rfind("|-", 0) == 0;
    if (!row) continue;
    EXPECT_EQ(Cells(line), columns.back()) << line;
    ++rows.back();
  }
  EXPECT_EQ(columns, (std::vector<int>{5, 3}));
  EXPECT_EQ(rows, (std::vector<int>{3, 3}));
}

TEST(MarkdownRenderer, TheTimelineIsACollapsedTableOfPhaseStartAndDuration) {
  const std::string md = MarkdownRenderer(/*details=*/true).Render(fixtures::PassedComparison());
  EXPECT_TRUE(Has(md,
                  "<details><summary>Phase timeline</summary>\n\nSeconds on std::chrono::steady\\_clock since the "
                  "worker began the job at 2024-05-02T10:00:30.000Z.\n\n| phase | start | duration |\n"))
      << md;
  EXPECT_TRUE(Has(md, "| build baseline | 62.50 ms | 250.0 ms |\n"));
  EXPECT_TRUE(Has(md, "| timing candidate | 984.4 ms | 500.0 ms |\n"));
  EXPECT_TRUE(Has(md, "| check | 4.781 s | 15.62 ms |\n</details>") ||
              Has(md, "| check | 4.781 s | 15.62 ms |\n\n</details>"));
  EXPECT_FALSE(Has(MarkdownRenderer().Render(fixtures::FailedCheckComparison()), "Phase timeline"));
}

TEST(MarkdownRenderer, LoadDuringTimingOnlyWhereSampled) {
  const std::string md = MarkdownRenderer().Render(fixtures::BusyBaselineComparison());
  EXPECT_NE(md.find("Load during timing: before: baseline: others used 38% of CPUs 0-1; 1-min load 1.50 to 2.25"),
            std::string::npos)
      << md;
  EXPECT_EQ(MarkdownRenderer().Render(fixtures::PassedComparison()).find("Load during timing"), std::string::npos);
}

TEST(MarkdownRenderer, TheNoiseFloorIsOneLineOnlyWhereRecorded) {
  v1::Comparison c = fixtures::PassedComparison();
  *c.mutable_noise_floor() = fixtures::StaleNoiseFloor();
  const std::string md = MarkdownRenderer().Render(c);
  EXPECT_TRUE(Has(md,
                  "- **Noise floor (not used for the label):** Stale noise floor (older than 7 days (8 days)): "
                  "This machine resolves changes of about 3.1% or more"))
      << md;
  EXPECT_FALSE(Has(MarkdownRenderer().Render(fixtures::PassedComparison()), "Noise floor"));
}
}  // namespace
}  // namespace torchscan::report
