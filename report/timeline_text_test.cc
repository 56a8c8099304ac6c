#include "report/timeline_text.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace torchscan {
namespace {

v1::Timeline Spans(std::initializer_list<std::tuple<std::string, double, double>> spans) {
  v1::Timeline t;
  for (const auto& [phase, start, end] : spans) {
    v1::PhaseSpan* s = t.add_spans();
    s->set_phase(phase);
    s->set_start_s(start);
    s->set_end_s(end);
  }
  return t;
}

TEST(TimelineText, OneAlignedLinePerPhaseWithStartAndDuration) {
  EXPECT_EQ(TimelineText(Spans({{"queue wait", 0, 0.0125}, {"LibTorch load", 0.25, 1.25}, {"timing baseline", 1.25, 1.5}}),
                         "  "),
            "  phase                 start    duration\n"
            "  queue wait              0 s    12.50 ms\n"
            "  LibTorch load      250.0 ms     1.000 s\n"
            "  timing baseline     1.250 s    250.0 ms\n");
}

TEST(TimelineText, MicrosecondsStayAligned) {
  EXPECT_EQ(TimelineText(Spans({{"memory", 2e-6, 4e-6}}), ""),
            "phase        start    duration\n"
            "memory    2.000 µs    2.000 µs\n");
}

TEST(TimelineText, LongNamesAreCutAndBadTimesShownAsUnknown) {
  const std::string text =
      TimelineText(Spans({{std::string(50, 'x'), 0, std::numeric_limits<double>::quiet_NaN()}}), "");
  EXPECT_EQ(text, "phase" + std::string(35, ' ') + "       start    duration\n" + std::string(37, 'x') +
                      "...         0 s           ?\n");
}

TEST(TimelineText, NoSpansNoText) { EXPECT_EQ(TimelineText(v1::Timeline(), "  "), ""); }

}  // namespace
}  // namespace torchscan
