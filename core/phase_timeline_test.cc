#include "core/phase_timeline.h"

#include <gtest/gtest.h>

#include "core/fake_clock.h"

namespace torchscan {
namespace {

void ExpectSpan(const v1::PhaseSpan& span, const std::string& phase, double start_s, double end_s) {
  EXPECT_EQ(span.phase(), phase);
  EXPECT_DOUBLE_EQ(span.start_s(), start_s) << phase;
  EXPECT_DOUBLE_EQ(span.end_s(), end_s) << phase;
}

TEST(PhaseTimeline, SpansAreSecondsSinceTheRecorderWasMade) {
  FakeClock clock;
  clock.Advance(1000);  // the clock's own origin is not the timeline's
  PhaseTimeline timeline(&clock, "2026-01-02T03:04:05.006Z");
  clock.Advance(0.25);
  timeline.Begin("build baseline");
  clock.Advance(1.5);
  timeline.End();
  clock.Advance(0.125);  // a gap between phases stays a gap
  timeline.Begin("timing baseline");
  clock.Advance(2);
  timeline.End();

  const v1::Timeline t = timeline.Snapshot();
  EXPECT_EQ(t.started_at(), "2026-01-02T03:04:05.006Z");
  EXPECT_EQ(t.clock(), "fake");
  ASSERT_EQ(t.spans_size(), 2);
  ExpectSpan(t.spans(0), "build baseline", 0.25, 1.75);
  ExpectSpan(t.spans(1), "timing baseline", 1.875, 3.875);
}

TEST(PhaseTimeline, BeginEndsTheOpenSpanAtTheSameInstant) {
  FakeClock clock;
  PhaseTimeline timeline(&clock, "t0");
  timeline.Begin("profile baseline");
  clock.Advance(0.5);
  timeline.Begin("memory baseline");
  clock.Advance(0.25);
  timeline.End();
  const v1::Timeline t = timeline.Snapshot();
  ASSERT_EQ(t.spans_size(), 2);
  ExpectSpan(t.spans(0), "profile baseline", 0, 0.5);
  ExpectSpan(t.spans(1), "memory baseline", 0.5, 0.75);
}

TEST(PhaseTimeline, ANameMayRepeatAndKeepsItsOrder) {
  FakeClock clock;
  PhaseTimeline timeline(&clock, "t0");
  for (const char* phase : {"timing baseline", "timing candidate", "timing candidate", "timing baseline"}) {
    timeline.Begin(phase);
    clock.Advance(1);
    timeline.End();
  }
  const v1::Timeline t = timeline.Snapshot();
  ASSERT_EQ(t.spans_size(), 4);
  ExpectSpan(t.spans(0), "timing baseline", 0, 1);
  ExpectSpan(t.spans(1), "timing candidate", 1, 2);
  ExpectSpan(t.spans(2), "timing candidate", 2, 3);
  ExpectSpan(t.spans(3), "timing baseline", 3, 4);
}

TEST(PhaseTimeline, SnapshotShowsAnOpenSpanEndedNowAndLeavesItOpen) {
  FakeClock clock;
  PhaseTimeline timeline(&clock, "t0");
  timeline.Begin("check");
  clock.Advance(0.5);
  ExpectSpan(timeline.Snapshot().spans(0), "check", 0, 0.5);
  clock.Advance(0.5);
  ExpectSpan(timeline.Snapshot().spans(0), "check", 0, 1);  // still open: it grew
  timeline.End();
  clock.Advance(7);
  ExpectSpan(timeline.Snapshot().spans(0), "check", 0, 1);  // ended: it stays
}

TEST(PhaseTimeline, EndWithoutAnOpenSpanChangesNothing) {
  FakeClock clock;
  PhaseTimeline timeline(&clock, "t0");
  timeline.End();
  EXPECT_EQ(timeline.Snapshot().spans_size(), 0);
  timeline.Begin("build candidate");
  clock.Advance(1);
  timeline.End();
  clock.Advance(1);
  timeline.End();
  ExpectSpan(timeline.Snapshot().spans(0), "build candidate", 0, 1);
}

TEST(PhaseTimeline, StartedAtDefaultsToTheWallTimeNow) {
  FakeClock clock;
  const v1::Timeline t = PhaseTimeline(&clock).Snapshot();
  // RFC 3339 UTC with milliseconds (core/timestamp.h): "2026-01-02T03:04:05.006Z".
  ASSERT_EQ(t.started_at().size(), 24u) << t.started_at();
  EXPECT_EQ(t.started_at()[10], 'T');
  EXPECT_EQ(t.started_at().back(), 'Z');
}

}  // namespace
}  // namespace torchscan
