#include "report/timeline_plot.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "absl/strings/match.h"
#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::report {
namespace {

int Count(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(PhaseKind, TheFirstWordNamesTheKind) {
  EXPECT_EQ(PhaseKind("timing baseline"), "timing");
  EXPECT_EQ(PhaseKind("warm-up candidate"), "warm-up");
  EXPECT_EQ(PhaseKind("rss candidate"), "rss");
  EXPECT_EQ(PhaseKind("check"), "check");
  EXPECT_EQ(PhaseKind("write result"), "write");
  EXPECT_EQ(PhaseKind("queue wait"), "queue");
  EXPECT_EQ(PhaseKind("worker start"), "worker");
  EXPECT_EQ(PhaseKind("LibTorch load"), "libtorch");
  EXPECT_EQ(PhaseKind("sleep"), "other");
  EXPECT_EQ(PhaseKind(""), "other");
}

TEST(TimelineSvg, OneBarPerPhaseInItsKindsLaneOnTheTimeAxis) {
  // Axis 0..4 s over x 96..548 (113 px a second); lanes 16 px from y 6.
  const std::string svg = TimelineSvg(
      fixtures::SpansTimeline({{"build baseline", 0, 1}, {"timing baseline", 1, 3}, {"check", 3, 4}}), "tl-0");
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_TRUE(absl::StrContains(svg, "viewBox=\"0 0 560 76\""));
  EXPECT_TRUE(absl::StrContains(svg, "aria-labelledby=\"tl-0-title tl-0-desc\""));
  EXPECT_TRUE(absl::StrContains(svg,
                                "<rect x=\"96.0\" y=\"8.0\" width=\"113.0\" height=\"12.0\" fill=\"#8250df\" "
                                "stroke=\"#ffffff\" stroke-width=\"0.5\"><title>build baseline: 0 s + 1.000 s"
                                "</title></rect>"));
  EXPECT_TRUE(absl::StrContains(svg,
                                "<rect x=\"209.0\" y=\"24.0\" width=\"226.0\" height=\"12.0\" fill=\"#0969da\" "
                                "stroke=\"#ffffff\" stroke-width=\"0.5\"><title>timing baseline: 1.000 s + 2.000 s"
                                "</title></rect>"));
  EXPECT_TRUE(absl::StrContains(svg, "<rect x=\"435.0\" y=\"40.0\" width=\"113.0\""));
  EXPECT_TRUE(absl::StrContains(svg, ">build</text>"));
  EXPECT_TRUE(absl::StrContains(svg, ">timing</text>"));
  EXPECT_TRUE(absl::StrContains(svg, ">check</text>"));
  EXPECT_FALSE(absl::StrContains(svg, ">rss</text>"));  // only the kinds present get a lane
  EXPECT_TRUE(absl::StrContains(svg, "3 phases drawn over 4.000 s"));
  EXPECT_TRUE(absl::StrContains(svg, ">4.000 s</text></svg>"));
}

TEST(TimelineSvg, RepeatedRoundsShareOneLaneAndEveryKindHasItsColour) {
  const std::string svg = TimelineSvg(fixtures::PassedComparison().timeline(), "t");
  EXPECT_EQ(Count(svg, "<rect "), fixtures::PassedComparison().timeline().spans_size());
  EXPECT_EQ(Count(svg, "fill=\"#0969da\""), 2);                        // timing baseline, timing candidate
  EXPECT_EQ(Count(svg, "fill=\"#0969da\" fill-opacity=\"0.55\""), 1);  // the candidate's is paler
  EXPECT_EQ(Count(svg, ">timing</text>"), 1);
  for (const char* kind : {"build", "profile", "memory", "rss", "check"})
    EXPECT_EQ(Count(svg, std::string(">") + kind + "</text>"), 1) << kind;
  for (const char* banned : {"<script", "style=", "https://"}) EXPECT_FALSE(absl::StrContains(svg, banned)) << banned;
  EXPECT_EQ(Count(svg, "http://"), 1);  // the xmlns only
  EXPECT_FALSE(absl::StrContains(svg, "nan"));
  EXPECT_FALSE(absl::StrContains(svg, "inf"));
}

TEST(TimelineSvg, LabelsAndIdsAreEscaped) {
  const std::string svg = TimelineSvg(fixtures::SpansTimeline({{"timing <b>&\"x\"", 0, 1}}), "a\"<id>");
  EXPECT_TRUE(absl::StrContains(svg, "timing &lt;b&gt;&amp;&quot;x&quot;: 0 s"));
  EXPECT_TRUE(absl::StrContains(svg, "a&quot;&lt;id&gt;-title"));
  EXPECT_FALSE(absl::StrContains(svg, "<b>"));
  EXPECT_FALSE(absl::StrContains(svg, "<id>"));
}

TEST(TimelineSvg, NothingDrawableGivesEmptyAndBadSpansAreSkipped) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(TimelineSvg(v1::Timeline(), "t"), "");
  EXPECT_EQ(TimelineSvg(fixtures::SpansTimeline({{"check", nan, 1}, {"check", 2, 1}}), "t"), "");
  const std::string svg = TimelineSvg(fixtures::SpansTimeline({{"check", nan, 1}, {"build x", 0, 2}}), "t");
  EXPECT_EQ(Count(svg, "<rect "), 1);
  EXPECT_TRUE(absl::StrContains(svg, "1 phases drawn, 1 not drawn"));
}

TEST(TimelineSvg, AZeroLengthTimelineStillHasFiniteCoordinates) {
  const std::string svg = TimelineSvg(fixtures::SpansTimeline({{"check", 0, 0}, {"write result", 0, 0}}), "t");
  EXPECT_EQ(Count(svg, "width=\"2.0\" height"), 2);            // zero-length bars stay visible
  EXPECT_FALSE(absl::StrContains(svg, "stroke=\"#ffffff\""));  // no white edge eats a narrow bar
  EXPECT_FALSE(absl::StrContains(svg, "nan"));
  EXPECT_FALSE(absl::StrContains(svg, "inf"));
}

TEST(TimelineSvg, ManySpansAreBoundedAndCounted) {
  v1::Timeline t;
  for (int i = 0; i < kMaxTimelineBars + 30; ++i) {
    v1::PhaseSpan* s = t.add_spans();
    s->set_phase(i % 2 ? "timing candidate" : "timing baseline");
    s->set_start_s(i);
    s->set_end_s(i + 0.5);
  }
  const std::string svg = TimelineSvg(t, "t");
  EXPECT_EQ(Count(svg, "<rect "), kMaxTimelineBars);
  EXPECT_TRUE(absl::StrContains(svg, "400 phases drawn, 30 not drawn"));
}

}  // namespace
}  // namespace torchscan::report
