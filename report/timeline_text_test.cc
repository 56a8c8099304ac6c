#include "report/timeline_text.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::report {
namespace {

TEST(TimelineText, OneAlignedLinePerPhaseWithStartAndDuration) {
  EXPECT_EQ(
      TimelineText(fixtures::SpansTimeline(
                       {{"queue wait", 0, 0.0125}, {"LibTorch load", 0.25, 1.25}, {"timing baseline", 1.25, 1.5}}),
                   "  "),
      "  phase                 start    duration\n"
      "  queue wait              0 s    12.50 ms\n"
      "  LibTorch load      250.0 ms     1.000 s\n"
      "  timing baseline     1.250 s    250.0 ms\n");
}

TEST(TimelineText, MicrosecondsStayAligned) {
  EXPECT_EQ(TimelineText(fixtures::SpansTimeline({{"memory", 2e-6, 4e-6}}), ""),
            "phase        start    duration\n"
            "memory    2.000 µs    2.000 µs\n");
}

TEST(TimelineText, LongNamesAreCutAndBadTimesShownAsUnknown) {
  const std::string text =
      TimelineText(fixtures::SpansTimeline({{std::string(50, 'x'), 0, std::numeric_limits<double>::quiet_NaN()}}), "");
  EXPECT_EQ(text, "phase" + std::string(35, ' ') + "       start    duration\n" + std::string(37, 'x') +
                      "...         0 s           ?\n");
}

TEST(TimelineText, NoSpansNoText) { EXPECT_EQ(TimelineText(v1::Timeline(), "  "), ""); }

}  // namespace
}  // namespace torchscan::report
