#include "report/paired_plot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::report {
namespace {

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
int Count(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(PairedRatioSvg, DrawsEachRoundTheIntervalTheMedianAndTheLineAtOne) {
  const std::string svg = PairedRatioSvg(fixtures::RoundsComparison().evidence().paired());
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_TRUE(Has(svg, "</svg>"));
  EXPECT_EQ(Count(svg, "h0"), 6);  // one dot per round
  EXPECT_TRUE(Has(svg, "<title>interval 0.495\u00d7 to 0.52\u00d7</title>"));
  EXPECT_TRUE(Has(svg, "<title>median 0.505\u00d7</title>"));
  EXPECT_TRUE(Has(svg, ">1 (no change)</text>"));
  EXPECT_TRUE(Has(svg, "6 rounds drawn; faster at 90.0%"));
  for (const char* banned : {"<script", "http://", "https://"})  // offline, no scripts (xmlns aside)
    EXPECT_EQ(Count(svg, banned), std::string(banned) == "http://" ? 1 : 0) << banned;
  EXPECT_FALSE(Has(svg, "nan"));
  EXPECT_FALSE(Has(svg, "inf"));
}

TEST(PairedRatioSvg, NothingToDrawGivesEmpty) {
  EXPECT_EQ(PairedRatioSvg(v1::PairedEvidence()), "");
  EXPECT_EQ(PairedRatioSvg(fixtures::PassedComparison().evidence().paired()), "");
  EXPECT_EQ(PairedRatioSvg(fixtures::FailedCheckComparison().evidence().paired()), "");
  v1::PairedEvidence bad;
  bad.add_round_ratios(std::numeric_limits<double>::quiet_NaN());
  bad.add_round_ratios(-1);
  EXPECT_EQ(PairedRatioSvg(bad), "");
}

TEST(PairedRatioSvg, TiedRatiosAtOneStillGiveFiniteCoordinates) {
  v1::PairedEvidence p;
  for (int i = 0; i < 5; ++i) p.add_round_ratios(1.0);
  p.set_median_ratio(1.0);
  p.set_ci_low(1.0);
  p.set_ci_high(1.0);
  const std::string svg = PairedRatioSvg(p);
  EXPECT_EQ(Count(svg, "h0"), 5);
  EXPECT_FALSE(Has(svg, "nan"));
  EXPECT_FALSE(Has(svg, "inf"));
}

TEST(PairedRatioSvg, ManyRoundsAreBoundedAndCounted) {
  v1::PairedEvidence p;
  for (int i = 0; i < kMaxPairedDots + 25; ++i) p.add_round_ratios(0.9 + (i % 10) * 0.02);
  const std::string svg = PairedRatioSvg(p);
  EXPECT_EQ(Count(svg, "h0"), kMaxPairedDots);
  EXPECT_TRUE(Has(svg, "400 rounds drawn, 25 not drawn"));
  EXPECT_EQ(Count(svg, "<path"), 1);
}

// "1 (no change)" has a row of its own: it cannot overlap the axis's end labels, even when 1
// lies at an end of the axis (all rounds slower), and it stays inside the picture there.
TEST(PairedRatioSvg, TheNoChangeLabelNeverSharesARowWithTheAxisEnds) {
  v1::PairedEvidence p;
  for (double r : {1.3, 1.4, 1.5, 1.6}) p.add_round_ratios(r);
  const std::string svg = PairedRatioSvg(p);
  const size_t one = svg.find(">1 (no change)</text>");
  ASSERT_NE(one, std::string::npos) << svg;
  const std::string label = svg.substr(svg.rfind("<text", one), one - svg.rfind("<text", one));
  EXPECT_TRUE(Has(label, "y=\"58.0\"")) << label;
  EXPECT_TRUE(Has(label, "text-anchor=\"start\"")) << label;                      // 1 is the axis's left end here
  EXPECT_TRUE(Has(svg, "y=\"74.0\" font-size=\"11\" fill=\"#57606a\">")) << svg;  // the ends' row
}

// 200 build pairs' rounds from 0.05x to 20x: a log axis whose ends are both positive, and a
// ratio and its inverse equally far from 1.
TEST(PairedRatioSvg, WideRatiosGetALogAxisThatNeverGoesNegative) {
  v1::PairedEvidence p;
  for (double r : {0.05, 0.5, 1.0, 2.0, 20.0}) p.add_round_ratios(r);
  const std::string svg = PairedRatioSvg(p);
  EXPECT_FALSE(Has(svg, ">-")) << svg;
  EXPECT_TRUE(Has(svg, ">0.0")) << svg;  // the left end, below 0.05x and above 0
  const size_t path = svg.find("<path d=\"");
  ASSERT_NE(path, std::string::npos);
  std::vector<double> xs;
  for (size_t at = svg.find('M', path); at != std::string::npos && at < svg.find('"', path + 9);
       at = svg.find('M', at + 1))
    xs.push_back(std::stod(svg.substr(at + 1)));
  ASSERT_EQ(xs.size(), 5u);
  EXPECT_NEAR(xs[2] - xs[1], xs[3] - xs[2], 0.2);  // 0.5x and 2x equally far from 1
  EXPECT_NEAR(xs[2] - xs[0], xs[4] - xs[2], 0.2);
}

}  // namespace
}  // namespace torchscan::report
