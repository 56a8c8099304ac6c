#include "core/phase_timeline.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/fake_clock.h"

namespace torchscan {
namespace {

void ExpectSpan(const v1::PhaseSpan& span, const std::string& phase, double start_s, double end_s) {
  EXPECT_EQ(span.phase(), phase);
  EXPECT_DOUBLE_EQ(span.start_s(), start_s) << phase;
  EXPECT_DOUBLE_EQ(span.end_s(), end_s) << phase;
}

struct Want {
  std::string phase;
  double start_s, end_s;
};

// The snapshot holds exactly `want`, in that order.
void ExpectSpans(const v1::Timeline& t, const std::vector<Want>& want) {
  ASSERT_EQ(t.spans_size(), static_cast<int>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) ExpectSpan(t.spans(i), want[i].phase, want[i].start_s, want[i].end_s);
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
  EXPECT_DOUBLE_EQ(timeline.Now(), 3.875) << "the job's time so far, on the same clock";
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
  ExpectSpans(
      timeline.Snapshot(),
      {{"timing baseline", 0, 1}, {"timing candidate", 1, 2}, {"timing candidate", 2, 3}, {"timing baseline", 3, 4}});
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

// Two RSS children started at once, then the worker's own builds beside them: the
// concurrent spans overlap each other and the own spans, keep the order they began, and end
// when told, each on its own; the own spans still run one at a time.
TEST(PhaseTimeline, ConcurrentSpansOverlapAndEndOnTheirOwn) {
  FakeClock clock;
  PhaseTimeline timeline(&clock, "t0");
  const int baseline = timeline.BeginConcurrent("rss baseline");
  const int candidate = timeline.BeginConcurrent("rss candidate");
  timeline.Begin("build baseline");
  clock.Advance(1);
  timeline.Begin("build candidate");  // ends the own span only
  clock.Advance(0.5);
  timeline.EndConcurrent(candidate);
  clock.Advance(0.25);
  timeline.End();
  timeline.EndConcurrent(baseline);
  timeline.EndConcurrent(baseline);  // ended already: stays
  timeline.EndConcurrent(2);         // an own span: not ended by this
  timeline.EndConcurrent(99);        // no such span
  clock.Advance(1);
  timeline.Begin("timing baseline");
  clock.Advance(1);

  const v1::Timeline t = timeline.Snapshot();
  ExpectSpans(t, {{"rss baseline", 0, 1.75},
                  {"rss candidate", 0, 1.5},
                  {"build baseline", 0, 1},
                  {"build candidate", 1, 1.75},
                  {"timing baseline", 2.75, 3.75}});  // open: ended now in the snapshot
  ASSERT_EQ(t.spans_size(), 5);
  EXPECT_TRUE(t.spans(0).concurrent());
  EXPECT_TRUE(t.spans(1).concurrent());
  for (int i = 2; i < 5; ++i) EXPECT_FALSE(t.spans(i).concurrent()) << t.spans(i).phase();
}

TEST(PhaseTimeline, AnOpenConcurrentSpanAppearsEndedNowInASnapshot) {
  FakeClock clock;
  PhaseTimeline timeline(&clock, "t0");
  const int rss = timeline.BeginConcurrent("rss measurement");
  clock.Advance(0.5);
  ExpectSpan(timeline.Snapshot().spans(0), "rss measurement", 0, 0.5);
  clock.Advance(0.5);
  timeline.EndConcurrent(rss);
  clock.Advance(3);
  ExpectSpan(timeline.Snapshot().spans(0), "rss measurement", 0, 1);
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
