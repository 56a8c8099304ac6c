#include "report/timing_plot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::report {
namespace {

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Checks that `svg` is well-formed XML for the subset we write (elements, quoted
// attributes, text, no comments) and returns the number of elements, or -1.
int WellFormedElements(const std::string& svg) {
  std::vector<std::string> open;
  int elements = 0;
  for (size_t i = svg.find('<'); i != std::string::npos; i = svg.find('<', i + 1)) {
    size_t end = i + 1;
    char quote = 0;
    for (; end < svg.size(); ++end) {
      if (quote) {
        if (svg[end] == quote) quote = 0;
        if (svg[end] == '<') return -1;  // an unescaped '<' inside an attribute
      } else if (svg[end] == '"' || svg[end] == '\'') {
        quote = svg[end];
      } else if (svg[end] == '>') {
        break;
      }
    }
    if (end == svg.size()) return -1;
    const std::string tag = svg.substr(i + 1, end - i - 1);
    const std::string name = tag.substr(tag[0] == '/', tag.find_first_of(" />", 1) - (tag[0] == '/'));
    if (tag[0] == '/') {
      if (open.empty() || open.back() != name) return -1;
      open.pop_back();
    } else {
      ++elements;
      if (tag.back() != '/') open.push_back(name);
    }
    i = end;
  }
  return open.empty() ? elements : -1;
}

// Every number in coordinate attributes and path data, which must lie in the viewBox.
void ExpectCoordinatesInside(const std::string& svg) {
  const std::regex attr(R"re(\b(x|y|x1|x2|y1|y2|width|height|d)="([^"]*)")re");
  const std::regex number(R"([-+]?[0-9]*\.?[0-9]+(e[-+]?[0-9]+)?)");
  size_t checked = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), attr); it != std::sregex_iterator(); ++it) {
    const std::string value = (*it)[2];
    for (auto n = std::sregex_iterator(value.begin(), value.end(), number); n != std::sregex_iterator(); ++n) {
      const double v = std::stod((*n)[0]);
      EXPECT_TRUE(std::isfinite(v)) << (*it)[0];
      EXPECT_GE(v, 0) << (*it)[0];
      EXPECT_LE(v, 1100) << (*it)[0];
      ++checked;
    }
  }
  EXPECT_GT(checked, 10u);
  std::string lower = svg;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_EQ(lower.find("nan"), std::string::npos);
  EXPECT_EQ(lower.find("inf"), std::string::npos);
}

TEST(TimingPlotSvg, OneBlockIsOneDotWithMedianAndBand) {
  const v1::BenchmarkReport r = fixtures::Report("one", 1, 12e-6, 0);
  const std::string svg = TimingPlotSvg({{"one", &r.timing()}});
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_GT(WellFormedElements(svg), 0);
  ExpectCoordinatesInside(svg);
  EXPECT_EQ(Count(svg, "<path"), 1u);
  EXPECT_EQ(Count(svg, "h0"), 1u);  // one dot
  EXPECT_NE(svg.find("median 12.00 µs"), std::string::npos);
  EXPECT_NE(svg.find("IQR 12.00 µs to 12.00 µs"), std::string::npos);
}

TEST(TimingPlotSvg, TenThousandBlocksStayBoundedInColumns) {
  const v1::BenchmarkReport before = fixtures::Report("before", 10000, 200e-6, 2e-9);
  const v1::BenchmarkReport after = fixtures::Report("after", 10000, 15e-6, 2e-10);
  const std::string svg = TimingPlotSvg({{"before: a", &before.timing()}, {"after: b", &after.timing()}});
  const int elements = WellFormedElements(svg);
  EXPECT_GT(elements, 0);
  EXPECT_LT(elements, 80);
  EXPECT_LT(svg.size(), 60u * 1024);
  EXPECT_EQ(Count(svg, "<path"), 2u);
  EXPECT_LE(Count(svg, "M"), 2u * kMaxColumns);
  EXPECT_NE(svg.find("10,000 blocks in 400 columns"), std::string::npos);
  ExpectCoordinatesInside(svg);
}

TEST(TimingPlotSvg, SideBySidePanelsShareOneAxis) {
  const v1::Comparison c = fixtures::PassedComparison();
  const std::string svg =
      TimingPlotSvg({{"before: baseline", &c.before().timing()}, {"after: candidate", &c.after().timing()}});
  EXPECT_GT(WellFormedElements(svg), 0);
  EXPECT_NE(svg.find(">before: baseline</text>"), std::string::npos);
  EXPECT_NE(svg.find(">after: candidate</text>"), std::string::npos);
  EXPECT_EQ(Count(svg, ">median "), 2u);                  // one median label per panel
  EXPECT_EQ(Count(svg, ">per-call time"), 1u);            // one shared y axis
  EXPECT_NE(svg.find(">0 s</text>"), std::string::npos);  // axis from 0: 16 µs is far below 211 µs
  ExpectCoordinatesInside(svg);
}

TEST(TimingPlotSvg, NonFiniteBlocksAreCountedNotDrawn) {
  v1::BenchmarkReport r = fixtures::Report("r", 5, 1e-3, 1e-4);
  r.mutable_timing()->mutable_blocks(1)->set_calls(0);
  r.mutable_timing()->mutable_blocks(2)->set_duration_s(NAN);
  const std::string svg = TimingPlotSvg({{"r", &r.timing()}});
  EXPECT_GT(WellFormedElements(svg), 0);
  EXPECT_EQ(Count(svg, "h0"), 3u);
  EXPECT_NE(svg.find("2 non-finite not drawn"), std::string::npos);
  ExpectCoordinatesInside(svg);
}

TEST(TimingPlotSvg, NoBlocksGiveAnEmptyPanelThatSaysSo) {
  v1::BenchmarkReport r = fixtures::Report("r", 3, 1e-3, 1e-4);
  r.mutable_timing()->clear_blocks();
  const std::string svg = TimingPlotSvg({{"r", &r.timing()}});
  EXPECT_GT(WellFormedElements(svg), 0);
  EXPECT_EQ(Count(svg, "<path"), 0u);
  EXPECT_NE(svg.find("no timing blocks"), std::string::npos);
  EXPECT_EQ(TimingPlotSvg({}), "");
}

// One 133 ms block among 2,000 of about 292 µs: the axis covers the 292 µs blocks (not a line
// at zero), the outlier sits on the top edge under a triangle, and the panel counts it.
TEST(TimingPlotSvg, AnOutlierIsCountedOnTheTopEdgeAndDoesNotFlattenTheRest) {
  v1::BenchmarkReport r = fixtures::Report("r", 2000, 288e-6, 4e-9, 30);
  r.mutable_timing()->mutable_blocks(17)->set_duration_s(0.133 * 30);
  const std::string svg = TimingPlotSvg({{"before", &r.timing()}});
  EXPECT_GT(WellFormedElements(svg), 0);
  ExpectCoordinatesInside(svg);
  EXPECT_EQ(Count(svg, "class=\"clipped\""), 1u);
  EXPECT_NE(svg.find("1 block above the top (slowest 133.0 ms)"), std::string::npos) << svg.substr(0, 400);
  EXPECT_NE(svg.find("(axis not from 0)"), std::string::npos);  // zoomed onto the blocks
  EXPECT_EQ(svg.find(">100 ms<"), std::string::npos);           // no tick near the outlier
  // The median's value is in the title row, above the plot (y = 24), not on the blocks.
  EXPECT_NE(svg.find("y=\"24.0\" text-anchor=\"end\" font-size=\"12\" fill=\"#1f2328\">median 292.0 µs"),
            std::string::npos)
      << svg.substr(svg.find(">median") - 120, 160);
  // Without the outlier there is nothing to count.
  const v1::BenchmarkReport plain = fixtures::Report("r", 2000, 288e-6, 4e-9, 30);
  EXPECT_EQ(TimingPlotSvg({{"before", &plain.timing()}}).find("clipped"), std::string::npos);
}

TEST(TimingPlotSvg, LabelsAreEscapedAndLongOnesCut) {
  const v1::BenchmarkReport r = fixtures::Report("r", 3, 1e-3, 1e-4);
  const std::string svg = TimingPlotSvg({{"<script>alert(1)</script>" + std::string(300, 'x'), &r.timing()}});
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(svg.find("x\u2026</text>"), std::string::npos);
  EXPECT_GT(WellFormedElements(svg), 0);
}

}  // namespace
}  // namespace torchscan::report
