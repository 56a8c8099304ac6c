#include "daemon/job_phases.h"

#include <gtest/gtest.h>

#include "core/fake_clock.h"

namespace torchscan::daemon {
namespace {

struct Span {
  std::string phase;
  double start_s, end_s;
  bool concurrent;
};

std::vector<Span> Spans(const JobPhases& phases) {
  std::vector<Span> spans;
  const v1::Timeline timeline = phases.Snapshot();
  for (const v1::PhaseSpan& s : timeline.spans()) spans.push_back({s.phase(), s.start_s(), s.end_s(), s.concurrent()});
  return spans;
}

void ExpectSpan(const Span& s, const std::string& phase, double start_s, double end_s, bool concurrent) {
  EXPECT_EQ(s.phase, phase);
  EXPECT_NEAR(s.start_s, start_s, 1e-9) << phase;
  EXPECT_NEAR(s.end_s, end_s, 1e-9) << phase;
  EXPECT_EQ(s.concurrent, concurrent) << phase;
}

// A cold worker's comparison with rss: the children started with the worker run beside its
// LibTorch load and builds, and end (as far as the daemon sees) when timing begins.
TEST(JobPhases, RssChildrenAreConcurrentSpansEndedWhenThePhaseAfterTheWaitBegins) {
  FakeClock clock;
  JobPhases phases(&clock, "2026-12-01T00:00:00.000Z");
  phases.Begin("worker start (cold: spare worker off (no_spare_worker))");
  clock.Advance(0.1);
  phases.Begin("LibTorch load");
  phases.EarlyChildrenStarted(2);
  clock.Advance(0.6);
  phases.Begin("rss baseline");
  phases.Begin("rss candidate");
  clock.Advance(0.1);
  phases.Begin("build baseline");
  clock.Advance(0.1);
  phases.Begin("wait for rss");
  clock.Advance(0.3);
  phases.Begin("timing baseline");
  clock.Advance(0.3);
  phases.End();
  const std::vector<Span> spans = Spans(phases);
  ASSERT_EQ(spans.size(), 8u);
  ExpectSpan(spans[0], "worker start (cold: spare worker off (no_spare_worker))", 0, 0.1, false);
  // The "rss ..." lines open concurrent spans: the own phase before them goes on.
  ExpectSpan(spans[1], "LibTorch load", 0.1, 0.8, false);
  ExpectSpan(spans[2], "rss children (2 started with the worker)", 0.1, 1.2, true);
  ExpectSpan(spans[3], "rss baseline", 0.7, 1.2, true);
  ExpectSpan(spans[4], "rss candidate", 0.7, 1.2, true);
  ExpectSpan(spans[5], "build baseline", 0.8, 0.9, false);
  ExpectSpan(spans[6], "wait for rss", 0.9, 1.2, false);
  ExpectSpan(spans[7], "timing baseline", 1.2, 1.5, false);
}

// Without a "wait for rss" line a timing phase still ends them: nothing runs beside timing.
TEST(JobPhases, ATimingPhaseEndsOpenRssSpans) {
  FakeClock clock;
  JobPhases phases(&clock);
  phases.Begin("rss measurement");
  clock.Advance(0.5);
  phases.Begin("warm-up measurement");
  clock.Advance(0.5);
  const std::vector<Span> spans = Spans(phases);
  ASSERT_EQ(spans.size(), 2u);
  ExpectSpan(spans[0], "rss measurement", 0, 0.5, true);
  ExpectSpan(spans[1], "warm-up measurement", 0.5, 1.0, false);
}

// A job that ends (fails, is cancelled) while its children run ends their spans with it.
TEST(JobPhases, EndEndsOpenRssSpans) {
  FakeClock clock;
  JobPhases phases(&clock);
  phases.Begin("LibTorch load");
  phases.EarlyChildrenStarted(1);
  phases.EarlyChildrenStarted(0);  // nothing
  clock.Advance(0.25);
  phases.End();
  clock.Advance(1);
  const std::vector<Span> spans = Spans(phases);
  ASSERT_EQ(spans.size(), 2u);
  ExpectSpan(spans[0], "LibTorch load", 0, 0.25, false);
  ExpectSpan(spans[1], "rss children (1 started with the worker)", 0, 0.25, true);
}

// A worker that sends phase after phase (issue 41: 13,415 made a 0.05 s job take 116 s) gets
// kMaxJobPhases kept; the rest are refused, and the timeline stops growing.
TEST(JobPhases, PhasesPastTheCapAreNotKept) {
  FakeClock clock;
  JobPhases phases(&clock);
  for (int i = 0; i < kMaxJobPhases; ++i) ASSERT_TRUE(phases.Begin("phase " + std::to_string(i))) << i;
  EXPECT_FALSE(phases.Begin("one too many"));
  EXPECT_FALSE(phases.Begin("rss candidate"));  // concurrent ones count too
  const std::vector<Span> spans = Spans(phases);
  ASSERT_EQ(spans.size(), static_cast<size_t>(kMaxJobPhases));
  EXPECT_EQ(spans.back().phase, "phase " + std::to_string(kMaxJobPhases - 1));
}

}  // namespace
}  // namespace torchscan::daemon
