#include "report/html_renderer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/proto_json.h"
#include "report/report_json.h"
#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::report {
namespace {

std::string Render(const Evidence& evidence) { return HtmlRenderer().Render(evidence); }

bool Has(const std::string& page, const std::string& text) { return page.find(text) != std::string::npos; }

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Text that would betray a speed label or a delta of PassedComparison's runs.
const std::vector<std::string> kLabelsAndDeltas = {
    "faster",    "slower",    "within_variability", "within variability",  // labels
    "-194.9 µs", "-9.900 µs", "+1.836 M samples/s", "-244 B",              // deltas
    "0.0763",    "×",                                                      // ratios
    "-92.4%",    "3.7e-05",   "Mann-Whitney p",                            // evidence
};

void ExpectNoLabelOrDelta(const std::string& page) {
  for (const std::string& text : kLabelsAndDeltas) EXPECT_FALSE(Has(page, text)) << "page shows " << text;
  for (const char* text : {"Paired rounds", "paired-title", "no_claim"}) EXPECT_FALSE(Has(page, text)) << text;
}

// Evidence text is escaped, so every '<' starts one of our own tags: none of them may load
// anything, and the only URL in a tag is the SVG namespace (a name, not a request).
void ExpectSelfContained(const std::string& page) {
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  size_t tags = 0;
  for (size_t at = page.find('<'); at != std::string::npos; at = page.find('<', at + 1)) {
    const std::string tag = page.substr(at, page.find('>', at) - at + 1);
    ++tags;
    for (const char* bad :
         {"<script", "<link", "<img", "<iframe", "<object", "<embed", " src=", " href=", "url(", " on"})
      EXPECT_EQ(tag.find(bad), std::string::npos) << tag;
    if (tag.find("http") != std::string::npos) {
      EXPECT_TRUE(tag.find("xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos ||
                  tag.rfind("<meta http-equiv=", 0) == 0)
          << tag;
    }
  }
  EXPECT_GT(tags, 100u);
  EXPECT_FALSE(Has(page, "@import"));
  EXPECT_TRUE(Has(page, "default-src 'none'"));
}

// A comparison of one labelled job: its runs' model names and the label.
v1::Comparison Labelled() {
  v1::Comparison c = fixtures::PassedComparison();
  c.set_label("freeze <trial>");
  c.mutable_before()->set_model("mlp.pt");
  c.mutable_after()->set_model("mlp_opt.pt");
  return c;
}

TEST(HtmlRenderer, ComparisonShowsItsTimingPlanWhenRecorded) {
  const v1::Comparison c = fixtures::InterleavedComparison();
  EXPECT_NE(HtmlRenderer().Render(c).find("<p class=\"muted\" id=\"round-plan\">Timing plan: 10 alternating rounds"),
            std::string::npos);
  EXPECT_EQ(HtmlRenderer().Render(fixtures::PassedComparison()).find("round-plan"), std::string::npos);
}

TEST(HtmlRenderer, TitleAndHeadingCarryTheLabelAndModels) {
  const std::string page = Render(Labelled());
  EXPECT_TRUE(Has(page,
                  "<title>TorchScan: freeze &lt;trial&gt;: baseline (mlp.pt) \u2192 candidate (mlp_opt.pt) "
                  "(execution_mode per-sample forwards + torch.stack \u2192 one batched forward)</title>"))
      << page.substr(0, 600);
  EXPECT_TRUE(Has(page,
                  "<h1>freeze &lt;trial&gt;: baseline (mlp.pt) \u2192 candidate (mlp_opt.pt) (execution_mode "
                  "per-sample forwards + torch.stack \u2192 one batched forward)</h1>"));
}

TEST(HtmlRenderer, ReportAloneShowsEveryPart) {
  const std::string page = Render(fixtures::ReportAlone());
  ExpectSelfContained(page);
  EXPECT_TRUE(Has(page, "<h1>baseline</h1>"));
  EXPECT_TRUE(Has(page, ">211.0 µs<"));             // median
  EXPECT_TRUE(Has(page, ">11.00 µs<"));             // IQR
  EXPECT_TRUE(Has(page, ">151.7 k samples/s<"));    // throughput
  EXPECT_TRUE(Has(page, "<code>high_iqr</code>"));  // warning
  EXPECT_TRUE(Has(page, "<svg"));
  EXPECT_TRUE(Has(page, "<details id=\"raw-blocks-report\"><summary>baseline: 12 blocks</summary>"));
  EXPECT_TRUE(Has(page, "<tr><td>12<td>1,000<td>"));  // the last raw block
  EXPECT_TRUE(Has(page, ">AMD EPYC 7B13<"));          // environment
  EXPECT_TRUE(Has(page, ">inputs: [32, 128] float32 on cpu<"));
  EXPECT_TRUE(Has(page, ">Linear(128, 128)<"));  // workload
  EXPECT_TRUE(Has(page, ">200.0 ms<"));          // timing.min_run_time_s
  EXPECT_FALSE(Has(page, "id=\"deltas\""));
  EXPECT_FALSE(Has(page, "class=\"banner"));
}

TEST(HtmlRenderer, ScopedMetricsKeepMethodAndScopeAndAreNeverSummed) {
  const std::string page = Render(fixtures::ReportAlone());
  for (const char* text :
       {"tensor_peak_bytes", "rss_peak_bytes", "allocator_peak_bytes", ">32.25 KiB<", ">412.5 MiB<", ">64.00 KiB<",
        "VmHWM of a fresh child process", "start-up + imports + model/input construction + 100 calls"})
    EXPECT_TRUE(Has(page, text)) << text;
  EXPECT_FALSE(Has(page, "412.6 MiB"));  // tensor + RSS + allocator peaks added up
}

TEST(HtmlRenderer, ProfileIsOrderedBySelfTimeAndIncompleteFlopsAreALowerBound) {
  const std::string page = Render(fixtures::IncompleteFlopsReport());
  const size_t addmm = page.find("<code>aten::addmm</code>");
  const size_t mha = page.find("<code>aten::_native_multi_head_attention</code>");
  const size_t linear = page.find("<code>aten::linear</code>");
  ASSERT_NE(mha, std::string::npos);
  EXPECT_LT(addmm, mha);   // 150 µs self
  EXPECT_LT(mha, linear);  // 80 µs, then 20 µs
  EXPECT_TRUE(Has(page, "FLOPs per call: <strong>1.049 MFLOP</strong> <span class=\"badge warn\">lower bound</span>"));
  EXPECT_TRUE(Has(page, "1 operator without a FLOP formula: aten::_native_multi_head_attention (4 calls)"));
  EXPECT_TRUE(Has(page, "no formula"));
  EXPECT_TRUE(Has(page, "not clean workload timing"));
}

TEST(HtmlRenderer, ManyOperatorsFoldBeyondTheTopFifteen) {
  const std::string page = Render(fixtures::LargeComparison(3, 40));
  EXPECT_TRUE(Has(page, "<details id=\"operators-before\"><summary>25 more operators, by self time</summary>"));
  EXPECT_EQ(Count(page, "<code>custom::op_"), 36u + 37u);  // every operator of both runs, once
}

TEST(HtmlRenderer, PassedComparisonShowsLabelEvidenceAndDeltas) {
  const std::string page = Render(fixtures::PassedComparison());
  ExpectSelfContained(page);
  EXPECT_TRUE(Has(page,
                  "<h1>baseline \u2192 candidate (execution_mode per-sample forwards + torch.stack \u2192 one batched "
                  "forward)</h1>"));
  EXPECT_TRUE(Has(page, "<div class=\"k\">Output check</div><div class=\"v\">passed</div>"));
  EXPECT_TRUE(Has(page, "<div class=\"k\">Latency change</div><div class=\"v\">faster</div>"));
  EXPECT_TRUE(  // the label's rule in the sentence's words, its reason in human units in the details
      Has(page, "<div class=\"s\">median change -92.4%, more than the IQR 5.2% of the median</div>"));
  EXPECT_TRUE(Has(page, "<td>median change -194.9 µs vs larger IQR 11.00 µs: larger than the spread</td>"));
  EXPECT_TRUE(Has(page, ">-92.4%<"));  // relative change
  EXPECT_TRUE(Has(page, "<th>Mann-Whitney U, two-sided p</th><td class=\"n\">3.7e-05</td>"));
  EXPECT_TRUE(Has(page, "<th>what p means</th>"));
  EXPECT_FALSE(Has(page, "Mann-Whitney p ="));                           // no bare p-value beside the label
  EXPECT_TRUE(Has(page, ">-194.9 µs<"));                                 // median delta
  EXPECT_TRUE(Has(page, ">0.0763×<"));                                   // its ratio
  EXPECT_TRUE(Has(page, "<code>workload.execution_mode</code>"));        // changed setting
  EXPECT_TRUE(Has(page, "within_variability means the median change"));  // the rule's note
  EXPECT_FALSE(Has(page, "class=\"banner"));
  // Before and after side by side in one picture (the other is the phase timeline).
  EXPECT_EQ(Count(page, "<svg"), 2u);
  EXPECT_EQ(Count(page, "<title id=\"plot-title\">"), 1u);
  EXPECT_TRUE(Has(page, ">before: baseline</text>"));
  EXPECT_TRUE(Has(page, ">after: candidate</text>"));
}

TEST(HtmlRenderer, PairedRoundsShowTheClaimAndDrawEachRatio) {
  const std::string page = Render(fixtures::RoundsComparison());
  ExpectSelfContained(page);
  EXPECT_TRUE(Has(page, "<h3>Paired rounds (not used to choose the label)</h3>"));
  EXPECT_TRUE(Has(page, "<th>claim</th><td>faster</td>"));
  EXPECT_TRUE(Has(page, "resolves changes of \u00b11.3%"));
  EXPECT_EQ(Count(page, "<svg"), 2u);  // the blocks, then the per-round ratios
  EXPECT_TRUE(Has(page, "<title id=\"paired-title\">Per-round ratio after/before</title>"));
  // The label is still the guide's, from the pooled blocks.
  EXPECT_TRUE(Has(page, "<div class=\"k\">Latency change</div><div class=\"v\">faster</div>"));

  v1::Comparison failed = fixtures::RoundsComparison();
  failed.mutable_output_check()->set_status(v1::OutputCheck::failed);  // an edited file keeps its ratios
  const std::string withheld = Render(failed);
  ExpectNoLabelOrDelta(withheld);
  EXPECT_EQ(Count(withheld, "<svg"), 1u);
}

TEST(HtmlRenderer, TheVerdictSentenceComesFirst) {
  const std::string page = Render(fixtures::RoundsComparison());
  const size_t sentence = page.find(
      "<p class=\"verdict-sentence\" id=\"verdict-sentence\">49.5% faster (90.0% "
      "interval 48.0% to 50.5%); larger than the runs&#39; spread (");
  ASSERT_NE(sentence, std::string::npos) << page.substr(0, 3000);
  EXPECT_LT(sentence, page.find("<div class=\"cards\">"));
  const std::string failed = Render(fixtures::FailedCheckComparison());
  EXPECT_TRUE(Has(failed, ">No speed verdict: the output check failed (max abs diff 0.5")) << failed.substr(0, 3000);
}

TEST(HtmlRenderer, FailedCheckIsABannerAndShowsNoLabelOrDelta) {
  const std::string page = Render(fixtures::FailedCheckComparison());
  ExpectSelfContained(page);
  const size_t banner =
      page.find("<div class=\"banner fail\" role=\"alert\"><strong>\u2716 Output check failed</strong>");
  ASSERT_NE(banner, std::string::npos);
  EXPECT_LT(banner, page.find("class=\"cards\""));  // first thing after the title
  EXPECT_TRUE(Has(page, "max abs diff 0.5 exceeds atol 1e-05 (rtol 1e-04)"));
  EXPECT_TRUE(Has(page, "<div class=\"v\">withheld</div>"));
  EXPECT_TRUE(Has(page, "Withheld because the output check failed"));
  EXPECT_TRUE(Has(page, "1 note about the withheld speed label not shown"));
  ExpectNoLabelOrDelta(page);
  // Both measurements are kept.
  EXPECT_TRUE(Has(page, ">211.0 µs<"));
  EXPECT_TRUE(Has(page, ">16.10 µs<"));
}

TEST(HtmlRenderer, FailedCheckWithholdsEvenWhatAnEditedFileStillHolds) {
  const v1::Comparison tampered = fixtures::TamperedFailedComparison();
  ASSERT_EQ(tampered.latency_change(), v1::Comparison::faster);
  ASSERT_TRUE(tampered.deltas(0).has_delta());
  const std::string page = Render(tampered);
  EXPECT_TRUE(Has(page, "Output check failed"));
  ExpectNoLabelOrDelta(page);
}

TEST(HtmlRenderer, LoadedComparisonRendersItsSavedCheckAsSaved) {
  const v1::Comparison failed = fixtures::FailedCheckComparison();
  const auto loaded = ParseComparison(ToJson(failed), "failed.json");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(Render(*loaded), Render(failed));
}

TEST(HtmlRenderer, IncompatibleRunsNameEachMismatchAndShowNoNumbers) {
  const std::string page = Render(fixtures::IncompatibleComparison());
  EXPECT_TRUE(
      Has(page, "<div class=\"banner warn\" role=\"alert\"><strong>\u26a0 The runs are not comparable</strong>"));
  EXPECT_TRUE(Has(page, "Mismatched: environment.cpu_model, environment.libtorch_version, environment.device_name"));
  EXPECT_TRUE(Has(page, "<td><code>environment.libtorch_version</code></td><td>1.13.1</td><td>2.1.0</td>"));
  EXPECT_TRUE(Has(page, "<tr class=\"differs\"><th>cpu_model</th>"));
  EXPECT_TRUE(Has(page, "Withheld because the runs are not comparable"));
  ExpectNoLabelOrDelta(page);
}

TEST(HtmlRenderer, UnknownDeltasKeepTheirReasons) {
  const std::string page = Render(fixtures::UnknownDeltasComparison());
  EXPECT_TRUE(Has(page, ">-194.9 µs<"));  // the timing deltas stay known
  for (const char* reason : {"methods differ: &quot;CPU tensor allocations", "missing in the after report",
                             "scopes differ: &quot;one call&quot; vs &quot;100 calls&quot;",
                             "incomplete in the after report (a lower bound)"})
    EXPECT_TRUE(Has(page, reason)) << reason;
  EXPECT_EQ(Count(page, "<tr class=\"unknown\">"), 4u);
}

TEST(HtmlRenderer, HostileStringsShowAsText) {
  for (const Evidence& evidence : std::vector<Evidence>{fixtures::HostileReport(), fixtures::HostileComparison()}) {
    const std::string page = Render(evidence);
    ExpectSelfContained(page);
    for (const char* raw :
         {"<script", "<iframe", "<img", "<svg onload", "<b>", "onmouseover=\"", "</td></tr></table><b>"})
      EXPECT_FALSE(Has(page, raw)) << raw;
    EXPECT_TRUE(Has(page, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    EXPECT_TRUE(Has(page, "0&quot; onmouseover=&quot;alert(3)"));
    EXPECT_TRUE(Has(page, "&lt;img src=x onerror=alert(2)&gt;"));
    EXPECT_FALSE(Has(page, "\x1b"));
    EXPECT_FALSE(Has(page, "\x07"));
  }
}

TEST(HtmlRenderer, TheTimelineIsATableOfPhaseStartAndDuration) {
  const std::string page = Render(fixtures::PassedComparison());
  EXPECT_TRUE(Has(page, "<section id=\"timeline\"><h2>Phase timeline</h2>"));
  EXPECT_TRUE(Has(page,
                  "seconds on std::chrono::steady_clock since the worker began the job at "
                  "2024-05-02T10:00:30.000Z."));
  EXPECT_TRUE(Has(page,
                  "<tr><td><code>build baseline</code></td><td class=\"n\">62.50 ms</td><td class=\"n\">250.0 "
                  "ms</td></tr>"));
  EXPECT_TRUE(Has(page,
                  "<tr><td><code>timing candidate</code></td><td class=\"n\">984.4 ms</td><td "
                  "class=\"n\">500.0 ms</td></tr>"));
  const size_t section = page.find("<section id=\"timeline\">");
  EXPECT_EQ(Count(page.substr(section, page.find("</section>", section) - section), "<tr><td><code>"), 11u);
  EXPECT_FALSE(Has(Render(fixtures::FailedCheckComparison()), "id=\"timeline\""));  // no timeline saved
}

TEST(HtmlRenderer, TheTimelineIsAlsoABarChartBeforeItsTable) {
  const std::string page = Render(fixtures::PassedComparison());
  const size_t section = page.find("<section id=\"timeline\">");
  ASSERT_NE(section, std::string::npos);
  const std::string timeline = page.substr(section, page.find("</section>", section) - section);
  EXPECT_EQ(Count(timeline, "<svg "), 1u);
  EXPECT_TRUE(Has(timeline, "aria-labelledby=\"timeline-0-title timeline-0-desc\""));
  EXPECT_EQ(Count(timeline, "<rect "), 11u);  // one bar per phase
  EXPECT_LT(timeline.find("<svg "), timeline.find("<table"));
}

TEST(HtmlRenderer, TheJobsTimelineFromTorchscandFollowsWithItsOwnChartAndOrigin) {
  v1::Comparison c = fixtures::PassedComparison();
  *c.mutable_job_timeline() = fixtures::SpansTimeline(
      {{"queue wait", 0, 0.5}, {"worker start", 0.5, 0.625}, {"LibTorch load", 0.625, 1.5}, {"write result", 1.5, 2}});
  c.mutable_job_timeline()->set_started_at("2024-05-02T10:00:29.000Z");
  const std::string page = Render(c);
  EXPECT_TRUE(Has(page, "<h3>the job, as torchscand saw it</h3>"));
  EXPECT_TRUE(Has(page, "since the job was submitted at 2024-05-02T10:00:29.000Z."));
  EXPECT_TRUE(Has(page, "since the worker began the job at 2024-05-02T10:00:30.000Z."));  // the worker's, first
  EXPECT_TRUE(Has(page, "aria-labelledby=\"timeline-1-title timeline-1-desc\""));
  EXPECT_TRUE(Has(page,
                  "<tr><td><code>LibTorch load</code></td><td class=\"n\">625.0 ms</td><td "
                  "class=\"n\">875.0 ms</td></tr>"));
  EXPECT_LT(page.find("since the worker began"), page.find("since the job was submitted"));
}

TEST(HtmlRenderer, TenThousandBlocksStayAReasonableSize) {
  const std::string page = Render(fixtures::LargeComparison(10000, 1000));
  EXPECT_LT(page.size(), 3u << 20);
  EXPECT_EQ(Count(page, "<svg"), 1u);
  const size_t svg = page.find("<svg");
  EXPECT_LT(page.find("</svg>") - svg, 60u * 1024);
  EXPECT_TRUE(Has(page, "<tr><td>10000<td>1,000<td>"));  // every raw block is kept
}

TEST(HtmlRenderer, ComputedComparisonWithoutBlocksStillRenders) {
  v1::Comparison c = fixtures::PassedComparison();
  c.mutable_after()->mutable_timing()->clear_blocks();
  c.set_latency_change(v1::Comparison::unavailable);
  c.set_latency_change_reason("a run has no timing blocks");
  const std::string page = Render(c);
  EXPECT_TRUE(Has(page, "no timing blocks"));
  EXPECT_TRUE(Has(page, "<div class=\"v\">unavailable</div>"));
}

TEST(HtmlRenderer, LoadDuringTimingIsARowOnlyWhereSampled) {
  const std::string page = Render(fixtures::BusyBaselineComparison());
  EXPECT_NE(page.find("<th>load during timing</th>"), std::string::npos);
  EXPECT_NE(page.find("others used 38% of CPUs 0-1; 1-min load 1.50 to 2.25"), std::string::npos);
  EXPECT_EQ(Render(fixtures::PassedComparison()).find("load during timing"), std::string::npos);
}

TEST(HtmlRenderer, TheNoiseFloorIsOneSentenceOnlyWhereRecorded) {
  v1::Comparison c = fixtures::PassedComparison();
  *c.mutable_noise_floor() = fixtures::StaleNoiseFloor();
  const std::string page = Render(c);
  EXPECT_TRUE(Has(page,
                  "<p class=\"noise-floor stale\">Stale noise floor (older than 7 days (8 days)): This machine "
                  "resolves changes of about 3.1% or more (paired claim, 90% power)"))
      << page;
  EXPECT_FALSE(Has(Render(fixtures::PassedComparison()), "noise-floor"));
  v1::BenchmarkReport r = fixtures::PassedComparison().before();
  *r.mutable_noise_floor() = fixtures::StaleNoiseFloor();
  EXPECT_TRUE(Has(Render(r), "This machine resolves changes of about 3.1%"));
}
// A comparison ended by its check before timing: the page says so, with no empty table and no
// plot of nothing (whose axis once ran from -1 ns).
TEST(HtmlRenderer, RunsNotTimedSayNoRunWasTimed) {
  v1::Comparison c = fixtures::FailedCheckComparison();
  for (v1::BenchmarkReport* r : {c.mutable_before(), c.mutable_after()}) {
    r->mutable_timing()->Clear();
    v1::Warning* w = r->add_warnings();
    w->set_code("not_timed");
    w->set_message("the output check failed before timing, so this run was not timed");
  }
  const std::string page = Render(c);
  EXPECT_TRUE(Has(page, "id=\"not-timed\"")) << page.size();
  EXPECT_TRUE(Has(page, "It failed before timing, so neither run was timed"));
  EXPECT_FALSE(Has(page, "plot-title"));
  EXPECT_FALSE(Has(page, "per-call statistics"));
  EXPECT_FALSE(Has(page, "-1 ns"));
}

}  // namespace
}  // namespace torchscan::report
