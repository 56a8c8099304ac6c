#include "report/terminal_renderer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::report {
namespace {

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(TerminalRenderer, ComparisonIsCompactWithCheckLabelEvidenceAndRuns) {
  const std::string out = TerminalRenderer().Render(fixtures::PassedComparison());
  EXPECT_EQ(out.rfind("TorchScan comparison: baseline \u2192 candidate (execution_mode per-sample forwards + "
                      "torch.stack \u2192 one batched forward)\n  verdict   Faster by the guide's rule (",
                      0),
            0u)
      << out;
  EXPECT_TRUE(Has(out, "\n  check     passed  assert_close(rtol=1e-4, atol=1e-5)\n"));
  EXPECT_TRUE(Has(out, "\n  latency   faster  median change -92.4%, more than the IQR 5.2% of the median\n")) << out;
  EXPECT_FALSE(Has(out, "Mann-Whitney")) << "the p-value is in the details, with what it means";
  EXPECT_TRUE(Has(out, "\n  compat    compatible  1 changed setting\n"));
  EXPECT_TRUE(Has(out, "\n  before    baseline     211.0 µs ± 11.00 µs       151.7 k samples/s  12 blocks\n"));
  EXPECT_TRUE(Has(out, "\n  after     candidate    16.10 µs ± 1.100 µs       1.988 M samples/s  12 blocks\n"));
  EXPECT_TRUE(Has(out, "\n  paired    no claim  no timing rounds to pair: the runs were timed in a single pass\n"));
  EXPECT_LE(std::count(out.begin(), out.end(), '\n'), 9);
  EXPECT_FALSE(Has(out, "\x1b"));  // no colour unless asked
}

TEST(TerminalRenderer, ComparisonShowsItsTimingPlanWhenRecorded) {
  const v1::Comparison c = fixtures::InterleavedComparison();
  EXPECT_NE(TerminalRenderer().Render(c).find("  plan      10 alternating rounds (baseline, candidate, candidate, "
                                              "baseline, \u2026), each run timing 20.00 ms per round"),
            std::string::npos);
  EXPECT_EQ(TerminalRenderer().Render(fixtures::PassedComparison()).find("  plan "), std::string::npos)
      << "no plan recorded, no line";
}

TEST(TerminalRenderer, TitleCarriesTheLabelAndModels) {
  v1::Comparison c = fixtures::PassedComparison();
  c.set_label("freeze trial");
  c.mutable_before()->set_model("mlp.pt");
  c.mutable_after()->set_model("mlp_opt.pt");
  const std::string out = TerminalRenderer().Render(c);
  EXPECT_EQ(out.rfind("TorchScan comparison: freeze trial: baseline (mlp.pt) \u2192 candidate (mlp_opt.pt) "
                      "(execution_mode per-sample forwards + torch.stack \u2192 one batched forward)\n",
                      0),
            0u)
      << out;
}

TEST(TerminalRenderer, ColourOnlyWhenAsked) {
  const std::string out = TerminalRenderer({.color = true}).Render(fixtures::PassedComparison());
  EXPECT_TRUE(Has(out, "\x1b[32mpassed\x1b[0m"));
  EXPECT_TRUE(Has(out, "\x1b[32mfaster\x1b[0m"));
  const std::string failed = TerminalRenderer({.color = true}).Render(fixtures::FailedCheckComparison());
  EXPECT_TRUE(Has(failed, "\x1b[1;31mFAILED\x1b[0m"));
}

TEST(TerminalRenderer, FailedCheckPrintsFailedAndNoLabelOrDelta) {
  for (const v1::Comparison& c : {fixtures::FailedCheckComparison(), fixtures::TamperedFailedComparison()}) {
    const std::string out = TerminalRenderer().Render(c);
    EXPECT_TRUE(Has(out, "\n  check     FAILED  max abs diff 0.5 exceeds atol 1e-05 (rtol 1e-04)\n"));
    EXPECT_TRUE(Has(out, "\n  latency   withheld  because the output check failed\n"));
    for (const char* text : {"faster", "slower", "within", "%", "Mann-Whitney", "-194.9", "paired", "no_claim"})
      EXPECT_FALSE(Has(out, text)) << text;
  }
}

TEST(TerminalRenderer, PairedRoundsShowTheirClaimBesideTheLabel) {
  const std::string out = TerminalRenderer().Render(fixtures::RoundsComparison());
  EXPECT_TRUE(Has(out, "\n  paired    49.5% faster  90.0% interval 48.0% to 50.5%\n")) << out;
}

TEST(TerminalRenderer, IncompatibleRunsNameTheMismatches) {
  const std::string out = TerminalRenderer().Render(fixtures::IncompatibleComparison());
  EXPECT_TRUE(Has(out,
                  "  compat    NOT COMPARABLE  environment.cpu_model (AMD EPYC 7B13 vs Intel(R) Xeon(R) Gold 6338), "
                  "environment.libtorch_version (1.13.1 vs 2.1.0)"));
  EXPECT_TRUE(Has(out, "  latency   withheld  because the runs are not comparable\n"));
}

TEST(TerminalRenderer, ReportShowsItsRunAndWarnings) {
  const std::string out = TerminalRenderer().Render(fixtures::ReportAlone());
  EXPECT_EQ(
      out,
      "TorchScan report: baseline\n"
      "  baseline    211.0 µs ± 11.00 µs       151.7 k samples/s  12 blocks\n"
      "  warning   baseline: high_iqr: the IQR is 5.2% of the median: background load or frequency changes "
      "may be present\n"
      "  phases    5 phases over 2.469 s  build 250.0 ms, timing 500.0 ms, profile 62.50 ms, memory 31.25 ms, rss "
      "1.500 s\n");
}

TEST(TerminalRenderer, AComparisonJobsTimelineIsOneLineOfTimeByKindOfPhase) {
  const std::string out = TerminalRenderer().Render(fixtures::PassedComparison());
  // Eleven phases from 62.5 ms to 4.797 s; each kind's durations summed (two runs each).
  EXPECT_TRUE(Has(out,
                  "\n  phases    11 phases over 4.797 s  build 375.0 ms, timing 1.000 s, profile 125.0 ms, memory "
                  "62.50 ms, rss 3.000 s, check 15.62 ms\n"))
      << out;
}

// RSS children run beside the worker and each other: their kind shows the time any of them
// ran, not the sum, which could exceed the whole timeline.
TEST(TerminalRenderer, ConcurrentSpansShowTheTimeAnyRanMarkedBeside) {
  v1::BenchmarkReport report = fixtures::ReportAlone();
  v1::Timeline* t = report.mutable_timeline();
  t->clear_spans();
  const auto add = [&](const std::string& phase, double start, double end, bool concurrent) {
    v1::PhaseSpan* s = t->add_spans();
    s->set_phase(phase);
    s->set_start_s(start);
    s->set_end_s(end);
    s->set_concurrent(concurrent);
  };
  add("rss children (2 started with the worker)", 0.0, 1.0, true);
  add("rss baseline", 0.6, 0.9, true);
  add("rss candidate", 0.7, 1.0, true);
  add("build baseline", 0.1, 0.2, false);
  add("rss late", 1.5, 1.75, true);  // apart from the others: added
  add("timing baseline", 2.0, 2.5, false);
  EXPECT_TRUE(Has(TerminalRenderer().Render(report),
                  "\n  phases    6 phases over 2.500 s  rss 1.250 s beside, build 100.0 ms, timing 500.0 ms\n"))
      << TerminalRenderer().Render(report);
}

TEST(TerminalRenderer, EachSavedRunsTimelineGetsItsOwnLineAndNoneWithoutOne) {
  v1::Comparison saved = fixtures::PassedComparison();
  saved.clear_timeline();
  *saved.mutable_before()->mutable_timeline() = fixtures::ReportAlone().timeline();
  *saved.mutable_after()->mutable_timeline() = fixtures::ReportAlone().timeline();
  saved.mutable_after()->mutable_timeline()->mutable_spans()->DeleteSubrange(2, 3);
  const std::string out = TerminalRenderer().Render(saved);
  EXPECT_TRUE(Has(out, "\n  phases    before: baseline: 5 phases over 2.469 s  build 250.0 ms, timing 500.0 ms, "));
  EXPECT_TRUE(Has(out, "\n  phases    after: candidate: 2 phases over 828.1 ms  build 250.0 ms, timing 500.0 ms\n"))
      << out;
  EXPECT_FALSE(Has(TerminalRenderer().Render(fixtures::FailedCheckComparison()), "phases"));
}

TEST(TerminalRenderer, HostileNamesCannotEmitEscapeSequences) {
  const std::string out = TerminalRenderer().Render(fixtures::HostileComparison());
  EXPECT_FALSE(Has(out, "\x1b"));
  EXPECT_FALSE(Has(out, "\x07"));
  EXPECT_TRUE(Has(out, "?[2J"));
  EXPECT_TRUE(Has(out, "?]0;pwned? line?break"));
  // A newline in a message stays on its line: 9 lines, and the timeline's line.
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 10) << out;
}

TEST(TerminalRenderer, LoadDuringTimingOnlyWhereSampled) {
  const std::string out = TerminalRenderer().Render(fixtures::BusyBaselineComparison());
  EXPECT_NE(out.find("load      baseline: others used 38% of CPUs 0-1; 1-min load 1.50 to 2.25"), std::string::npos)
      << out;
  EXPECT_EQ(TerminalRenderer().Render(fixtures::PassedComparison()).find("others used"), std::string::npos);
}

TEST(TerminalRenderer, TheNoiseFloorIsOneLineOnlyWhereRecorded) {
  v1::Comparison c = fixtures::PassedComparison();
  *c.mutable_noise_floor() = fixtures::StaleNoiseFloor();
  const std::string out = TerminalRenderer().Render(c);
  EXPECT_TRUE(Has(out,
                  "\n  noise     stale  Stale noise floor (older than 7 days (8 days)): This machine resolves "
                  "changes of about 3.1% or more"))
      << out;
  EXPECT_FALSE(Has(TerminalRenderer().Render(fixtures::PassedComparison()), "noise"));
}
}  // namespace
}  // namespace torchscan::report
