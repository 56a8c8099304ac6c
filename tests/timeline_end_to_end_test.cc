// The guide's order, proved from the evidence of jobs run through a real torchscand and its
// worker: the RSS children start first and run at once, beside the builds, and every one has
// ended before the first timed block (nothing runs beside timing); both runs are built before
// any timing; timing of both runs (every round) ends before the first diagnostic pass
// (profile, memory) or the output check begins; and the timeline lies within the job's
// execution as the daemon recorded it. Each test prints the timeline it checked.
//
// Margins: the spans are on the worker's steady clock and are compared with each other
// exactly (one clock, one process). Comparisons with the daemon's job record cross two
// processes' wall clocks with 1 ms resolution; they get 1 s of slack, far above the
// resolution, for a wall clock stepped by NTP during the job. No timing verdict is asserted.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "daemon/job_timeline.h"
#include "proto/service.pb.h"
#include "report/report_json.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"
#include "tests/e2e_timeline.h"

namespace torchscan::e2e {
namespace {

using daemon::ParseRfc3339Seconds;

constexpr double kWallClockSlackS = 1;

void Print(const std::string& what, const v1::Timeline& timeline) {
  std::printf("%s: timeline from %s (%s)\n", what.c_str(), timeline.started_at().c_str(), timeline.clock().c_str());
  for (const v1::PhaseSpan& span : timeline.spans())
    std::printf("  %-20s %8.3f s  %8.3f s  (%.3f s)%s\n", span.phase().c_str(), span.start_s(), span.end_s(),
                span.end_s() - span.start_s(), span.concurrent() ? "  concurrent" : "");
}

// The job's RSS children: concurrent spans, one per run, all begun before the first build and
// all ended before the first timed block (warm-up or timing), the worker having waited for
// them in "wait for rss". With two, they ran at once: each began before the other ended.
void ExpectRssBeforeTiming(const v1::Timeline& t, size_t children) {
  const std::vector<v1::PhaseSpan> rss = Spans(t, "rss");
  ASSERT_EQ(rss.size(), children);
  for (const v1::PhaseSpan& span : rss) EXPECT_TRUE(span.concurrent()) << span.phase();
  std::vector<v1::PhaseSpan> timed = Spans(t, "warm-up");
  const std::vector<v1::PhaseSpan> timing = Spans(t, "timing");
  timed.insert(timed.end(), timing.begin(), timing.end());
  EXPECT_LE(FirstStart(rss), FirstStart(Spans(t, "build")));  // started before the builds...
  EXPECT_LE(LastEnd(rss), FirstStart(timed));                 // ...and ended before timing
  EXPECT_LE(LastEnd(rss), LastEnd(Spans(t, "wait for rss")));
  EXPECT_LE(LastEnd(Spans(t, "wait for rss")), FirstStart(timed));
  if (children == 2) {
    EXPECT_LT(rss[1].start_s(), rss[0].end_s());
    EXPECT_LT(rss[0].start_s(), rss[1].end_s());
  }
}

// The run carries the load seen while it was timed (Timing.load, sampled from /proc by the
// worker around each timing pass): a share of at least one CPU, sampled over an interval that
// holds its timed blocks and lies within its timing spans (one steady clock).
void ExpectLoadWithin(const v1::BenchmarkReport& run, const std::vector<v1::PhaseSpan>& timing_spans) {
  ASSERT_TRUE(run.timing().has_load()) << run.name();
  const v1::TimingLoad& load = run.timing().load();
  std::printf("%s: load %s\n", run.name().c_str(), load.ShortDebugString().c_str());
  EXPECT_GE(load.cpu_count(), 1);
  EXPECT_FALSE(load.cpus().empty());
  EXPECT_GE(load.other_cpu_share(), 0);
  EXPECT_LE(load.other_cpu_share(), 1);
  EXPECT_GE(load.interval_s(), run.timing().timed_total_s());
  EXPECT_LE(load.interval_s(), TotalSeconds(timing_spans));
}

// The spans lie within the job's execution as the daemon recorded it: the worker started its
// timeline after the daemon marked the job running, and its last phase ended before the
// daemon marked it finished.
void ExpectWithinTheJob(const TestDaemon& d, const std::string& client_stderr, const v1::Timeline& timeline) {
  const std::string id = SubmittedId(client_stderr);
  ASSERT_FALSE(id.empty()) << client_stderr;
  const v1::Job job = ShowJob(d, id);
  const double started = ParseRfc3339Seconds(job.started_at());
  const double finished = ParseRfc3339Seconds(job.finished_at());
  const double origin = ParseRfc3339Seconds(timeline.started_at());
  ASSERT_FALSE(std::isnan(started) || std::isnan(finished) || std::isnan(origin))
      << job.started_at() << " " << job.finished_at() << " " << timeline.started_at();
  EXPECT_GE(origin, started - kWallClockSlackS);
  EXPECT_LE(origin + timeline.spans(timeline.spans_size() - 1).end_s(), finished + kWallClockSlackS);
}

// --fixed-length: the planned rounds' phases (a default compare's "build pairs" phase after
// them: verdict_end_to_end_test).
TEST(TimelineEndToEnd, ACompareJobTimesBothRunsInEveryRoundBeforeAnyDiagnosticPassOrCheck) {
  TestDaemon d(TempDir("compare"));
  const std::string out = TempDir("compare_out");
  const CommandResult r = d.Client({"compare", "--model", "linear", "--rtol", "1e-4", "--atol", "1e-5", "--rss",
                                    "--rounds", "2", "--min-run-time", "0.05", "--fixed-length", "--output", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::Comparison> c =
      report::LoadComparison(out + "/comparison.json");  // strict: the timeline validates
  ASSERT_TRUE(c.ok()) << c.status();
  const v1::Timeline& t = c->timeline();
  Print("compare --rounds 2 --rss", t);
  EXPECT_TRUE(c->before().timeline().spans().empty());  // the comparison holds the job's timeline
  EXPECT_TRUE(c->after().timeline().spans().empty());

  // Every phase once (the output check twice: before timing, to fail fast, and after it), timing twice per run
  // (alternating rounds), in the order the guide
  // requires, the RSS children first (listed in the order the phases began); the first
  // round's leader warms up last, so that it continues from its own calls.
  EXPECT_EQ(
      PhaseNames(t),
      (std::vector<std::string>{
          "rss baseline", "rss candidate", "build baseline", "build candidate", "check (before timing)", "wait for rss",
          "warm-up candidate", "warm-up baseline", "timing baseline", "timing candidate", "timing candidate",
          "timing baseline", "profile baseline", "memory baseline", "profile candidate", "memory candidate", "check"}));

  // The same order from the times themselves, not from the list's order.
  ExpectRssBeforeTiming(t, 2);
  const std::vector<v1::PhaseSpan> builds = Spans(t, "build"), timings = Spans(t, "timing");
  std::vector<v1::PhaseSpan> after_timing;
  for (const char* kind : {"profile", "memory", "check"}) {
    std::vector<v1::PhaseSpan> spans = Spans(t, kind);
    spans.erase(std::remove_if(spans.begin(), spans.end(),
                               [](const v1::PhaseSpan& s) { return s.phase() == "check (before timing)"; }),
                spans.end());
    EXPECT_FALSE(spans.empty()) << kind;
    after_timing.insert(after_timing.end(), spans.begin(), spans.end());
  }
  ASSERT_EQ(builds.size(), 2u);
  ASSERT_EQ(timings.size(), 4u);
  EXPECT_LE(LastEnd(builds), FirstStart(timings));
  EXPECT_LE(LastEnd(timings), FirstStart(after_timing));

  // Each run's timing spans hold all of its timed blocks (measured inside them by the timing
  // runner on the same clock): a span that ended early would be shorter than its blocks.
  EXPECT_GE(TotalSeconds(Spans(t, "timing baseline")), c->before().timing().timed_total_s());
  EXPECT_GE(TotalSeconds(Spans(t, "timing candidate")), c->after().timing().timed_total_s());
  ExpectLoadWithin(c->before(), Spans(t, "timing baseline"));
  ExpectLoadWithin(c->after(), Spans(t, "timing candidate"));

  // What the daemon announced while the job ran (its events, seen by the client) came in the
  // timeline's order; quick phases may be missed between events, so a subsequence.
  const std::vector<std::string> announced = AnnouncedPhases(r.err);
  EXPECT_FALSE(announced.empty()) << r.err;
  EXPECT_TRUE(IsSubsequence(announced, PhaseNames(t))) << r.err;
  ExpectWithinTheJob(d, r.err, t);
}

TEST(TimelineEndToEnd, AMeasureJobsReportCarriesItsTimelineWithTimingBeforeDiagnostics) {
  TestDaemon d(TempDir("measure"));
  const std::string out = TempDir("measure_out");
  const CommandResult r =
      d.Client({"measure", "--model", "linear", "--rss", "--min-run-time", "0.05", "--output", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(out + "/report.json");
  ASSERT_TRUE(report.ok()) << report.status();
  const v1::Timeline& t = report->timeline();
  Print("measure --rss", t);
  EXPECT_EQ(PhaseNames(t),
            (std::vector<std::string>{"rss measurement", "build measurement", "wait for rss", "timing measurement",
                                      "profile measurement", "memory measurement"}));
  ExpectRssBeforeTiming(t, 1);
  EXPECT_LE(LastEnd(Spans(t, "build")), FirstStart(Spans(t, "timing")));
  EXPECT_LE(LastEnd(Spans(t, "timing")), FirstStart(Spans(t, "profile")));
  EXPECT_GE(TotalSeconds(Spans(t, "timing")), report->timing().timed_total_s());
  ExpectLoadWithin(*report, Spans(t, "timing"));
  EXPECT_GT(FirstStart(Spans(t, "rss")), 0);  // the worker read its job first
  ExpectWithinTheJob(d, r.err, t);
}

}  // namespace
}  // namespace torchscan::e2e
