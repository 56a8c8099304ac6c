#include "report/history_html.h"

#include <cmath>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/fixtures/history_fixtures.h"

namespace torchscan::report {
namespace {

namespace f = fixtures;

HistoryView ThreePoints() {
  HistoryView view = f::ThreePointView();
  view.report_href = [](const v1::Job& job) { return "reports/" + job.id() + ".html"; };
  return view;
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(HistoryHtml, EveryPointLinksToItsReportFromTheChartAndTheTable) {
  const std::string page = RenderHistoryHtml(ThreePoints());
  for (const char* id : {"job-a", "job-b", "job-c"}) {
    const std::string href = absl::StrCat("reports/", id, ".html");
    EXPECT_TRUE(absl::StrContains(page, absl::StrCat("<a href=\"", href, "\" xlink:href=\"", href, "\"><circle")))
        << id;
    EXPECT_TRUE(absl::StrContains(page, absl::StrCat("<a href=\"", href, "\">", id, "</a>"))) << id;
  }
  EXPECT_EQ(Count(page, "<circle"), 3u);
  EXPECT_FALSE(absl::StrContains(page, "reports/job-x.html"));  // a failed job has no report
  // The tooltip names revision, median, IQR and date.
  EXPECT_TRUE(absl::StrContains(page,
                                "<title>bbbb \u00b7 median 200.0 \u00b5s \u00b7 IQR 20.00 \u00b5s \u00b7 "
                                "2026-01-02 00:00 UTC \u00b7 job job-b</title>"))
      << page;
}

TEST(HistoryHtml, OfflineAndInTheReportPagesLook) {
  const std::string page = RenderHistoryHtml(ThreePoints());
  EXPECT_TRUE(absl::StartsWith(page, "<!DOCTYPE html>"));
  EXPECT_TRUE(absl::StrContains(page, "Content-Security-Policy\" content=\"default-src 'none'"));
  EXPECT_TRUE(absl::StrContains(page, "--muted:#57606a"));  // the report pages' style sheet
  EXPECT_FALSE(absl::StrContains(page, "<script"));
  EXPECT_FALSE(absl::StrContains(page, "src="));
  EXPECT_EQ(Count(page, "http://"), 2u);  // the two SVG namespaces only
  EXPECT_TRUE(absl::StrContains(page, "<title>TorchScan history: resnet18-cpu</title>"));
  EXPECT_TRUE(absl::StrContains(page,
                                "from unix:/run/torchscan.sock \u00b7 4 jobs, 3 points (not plotted: 1 failed) "
                                "\u00b7 2026-01-01 to 2026-01-03"));
}

TEST(HistoryHtml, MachineChangeIsMarkedOnTheAxisAndNamedBelow) {
  const std::string page = RenderHistoryHtml(ThreePoints());
  EXPECT_EQ(Count(page, "<g class=\"machine-change\">"), 1u);
  EXPECT_TRUE(absl::StrContains(page, "<title>machine change #1: BLAS: reference -&gt; openblas</title>"));
  EXPECT_TRUE(absl::StrContains(page, "stroke-dasharray"));
  EXPECT_TRUE(absl::StrContains(page,
                                "<li id=\"machine-change-1\">#1 between <code>job-b</code> and "
                                "<code>job-c</code>: BLAS: reference -&gt; openblas</li>"));
  EXPECT_TRUE(absl::StrContains(page, "<a href=\"#machine-change-1\">changed #1</a>"));
  EXPECT_EQ(Count(page, "<tr class=\"machine-change\">"), 1u);
}

TEST(HistoryHtml, JobsThatAreNotPointsAreListedWithoutFigures) {
  const std::string page = RenderHistoryHtml(ThreePoints());
  EXPECT_TRUE(absl::StrContains(page,
                                "<tr class=\"unknown\"><td><code>job-x</code></td><td>-</td><td><code "
                                "title=\"xxxx\">xxxx</code></td><td colspan=\"7\">failed</td></tr>"))
      << page;
  // Newest first, the changes against the previous point.
  EXPECT_LT(page.find("<code>job-x"), page.find(">job-b</a>"));
  EXPECT_TRUE(absl::StrContains(page, "<td class=\"n\">-20.0%</td><td>faster</td>"));
  EXPECT_TRUE(absl::StrContains(page, "<td class=\"n\">+100.0%</td><td></td>"));
}

TEST(HistoryHtml, HostileNamesRevisionsAndLinksAreEscaped) {
  HistoryView view = ThreePoints();
  view.name = "<script>alert(1)</script>\"'";
  view.source = "<img src=x>";
  view.jobs[0].mutable_spec()->set_revision("\"><script>alert(2)</script>");
  view.jobs[0].mutable_summary()->set_model("<b>m</b>");
  view.jobs[0].set_latency_change("<i>faster</i>");
  view.jobs[2].mutable_summary()->set_machine("cpu=<svg onload=alert(3)>");
  view.report_href = [](const v1::Job&) { return std::string("a\"onmouseover=\"alert(4)"); };
  const std::string page = RenderHistoryHtml(view);
  EXPECT_FALSE(absl::StrContains(page, "<script"));
  EXPECT_FALSE(absl::StrContains(page, "<img"));
  EXPECT_FALSE(absl::StrContains(page, "<svg onload"));
  EXPECT_FALSE(absl::StrContains(page, "<b>m"));
  EXPECT_FALSE(absl::StrContains(page, "<i>"));
  EXPECT_FALSE(absl::StrContains(page, "\"onmouseover"));
  EXPECT_TRUE(absl::StrContains(page, "<h1>&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;</h1>")) << page;
  EXPECT_TRUE(absl::StrContains(page, "href=\"a&quot;onmouseover=&quot;alert(4)\""));
}

TEST(HistoryHtml, EmptyHistorySaysNoJobsNamedIt) {
  HistoryView view;
  view.name = "nothing-here";
  view.source = "lab-1:7070";
  const std::string page = RenderHistoryHtml(view);
  EXPECT_TRUE(absl::StrContains(page, "<p>No jobs named <code>nothing-here</code> at <code>lab-1:7070</code>.</p>"));
  EXPECT_FALSE(absl::StrContains(page, "<svg"));
  EXPECT_TRUE(absl::EndsWith(page, "</html>\n"));
}

TEST(HistoryHtml, OnlyJobsThatAreNotPointsDrawNoChart) {
  HistoryView view;
  view.name = "n";
  view.jobs = {f::NotPointJob("job-r", "", v1::Job::running)};
  const std::string page = RenderHistoryHtml(view);
  EXPECT_FALSE(absl::StrContains(page, "<svg"));
  EXPECT_TRUE(absl::StrContains(page, "nothing to plot"));
  EXPECT_TRUE(absl::StrContains(page, "<td colspan=\"7\">running</td>"));
}

TEST(HistoryHtml, OnePointWithoutLinks) {
  HistoryView view;
  view.name = "one";
  view.jobs = {f::PointJob("job-1", "2026-01-01T00:00:00.000Z", "", 2e-3, f::MachineText("openblas"))};
  const std::string page = RenderHistoryHtml(view);
  EXPECT_EQ(Count(page, "<circle"), 1u);
  EXPECT_EQ(Count(page, "<a "), 0u);  // no report_href: no links
  EXPECT_EQ(Count(page, "<g class=\"machine-change\""), 0u);
  EXPECT_EQ(Count(page, "<tr class=\"machine-change\""), 0u);
  EXPECT_TRUE(absl::StrContains(page, ">2026-01-01</text>"));
}

TEST(HistoryHtml, AxisLabelsShowTimesWhenNeighboursShareADate) {
  HistoryView view;
  view.name = "same-day";
  view.jobs = {f::PointJob("job-2", "2026-01-01T18:00:00.000Z", "", 2e-3, "m"),
               f::PointJob("job-1", "2026-01-01T06:00:00.000Z", "", 1e-3, "m")};
  const std::string page = RenderHistoryHtml(view);
  EXPECT_TRUE(absl::StrContains(page, ">2026-01-01 06:00 UTC</text>"));
  EXPECT_TRUE(absl::StrContains(page, ">2026-01-01 18:00 UTC</text>"));
  EXPECT_TRUE(absl::StrContains(RenderHistoryHtml(ThreePoints()), ">2026-01-03</text>"));
  // Each labelled date has its point's revision under it; none for a point without one.
  EXPECT_TRUE(
      absl::StrContains(RenderHistoryHtml(ThreePoints()), "font-family=\"monospace\" fill=\"#57606a\">bbbb</text>"));
  EXPECT_FALSE(absl::StrContains(page, "font-family=\"monospace\""));
}

TEST(HistoryHtml, NonFiniteQuartilesDrawTheMedianAndWriteFiniteCoordinates) {
  HistoryView view = ThreePoints();
  view.jobs[0].mutable_summary()->mutable_latency()->set_q1_s(NAN);
  view.jobs[2].mutable_summary()->mutable_latency()->set_q3_s(INFINITY);
  view.jobs[2].mutable_summary()->mutable_latency()->set_iqr_s(INFINITY);
  const std::string page = RenderHistoryHtml(view);
  const std::string svg = page.substr(page.find("<svg"), page.find("</svg>") - page.find("<svg"));
  EXPECT_FALSE(absl::StrContains(svg, "nan"));
  EXPECT_FALSE(absl::StrContains(svg, "inf\""));
  EXPECT_EQ(Count(svg, "<circle"), 3u);
  EXPECT_TRUE(absl::StrContains(page, "<td class=\"n\">Infinity</td>"));
}

TEST(HistoryHtml, ManyPointsThinTheMarkersButTheTableLinksEveryPoint) {
  HistoryView view;
  view.name = "long";
  view.jobs = f::SyntheticHistory(10000);  // 9,000 points
  view.report_href = [](const v1::Job& job) { return job.id() + ".html"; };
  const std::string page = RenderHistoryHtml(view);
  const size_t markers = Count(page, "<circle");
  EXPECT_LE(markers, static_cast<size_t>(kMaxHistoryMarkers));
  EXPECT_GE(markers, static_cast<size_t>(kMaxHistoryMarkers) / 2);
  EXPECT_TRUE(absl::StrContains(page, "xlink:href=\"job-009999.html\""));  // the newest point
  EXPECT_EQ(Count(page, "<tr"), 10001u);                                   // every job and the head
  std::set<std::string> table_links;                                       // from the table's cells: <a href="X">
  for (size_t at = page.find("<td><code><a href=\""); at != std::string::npos;
       at = page.find("<td><code><a href=\"", at + 1)) {
    const size_t begin = at + std::string("<td><code><a href=\"").size();
    table_links.insert(page.substr(begin, page.find('"', begin) - begin));
  }
  size_t points = 0;
  for (const v1::Job& job : view.jobs) {
    if (!job.has_summary()) continue;
    ++points;
    ASSERT_EQ(table_links.count(job.id() + ".html"), 1u) << job.id();
  }
  EXPECT_EQ(table_links.size(), points);
  EXPECT_TRUE(absl::StrContains(page, "One marker in 18 of the 9,000 points (the newest always)"));
}

}  // namespace
}  // namespace torchscan::report
