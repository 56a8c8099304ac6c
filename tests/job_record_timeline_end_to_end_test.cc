// The job record's phase timeline (proto Job.timeline), from a real torchscand and worker:
// the daemon's own phases (queue wait, worker start, LibTorch load: a cold worker's), then
// every phase the worker ran, in the order of the report's timeline, then writing the result; `jobs show`
// lists them, `jobs show --json` carries them, and so do the evidence (job_timeline) and its
// HTML. No timing verdict is asserted.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "proto/service.pb.h"
#include "report/report_json.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_timeline.h"

namespace torchscan::e2e {
namespace {

TEST(JobRecordTimelineEndToEnd, TheRecordListsEveryPhaseFromQueueWaitToWriteResult) {
  // A cold worker, whose LibTorch load the daemon times (a warm spare has none:
  // spare_worker_end_to_end_test).
  TestDaemon d(TempDir("record"), {"--no-spare-worker"});
  const std::string worker_start = "worker start (cold: spare worker off (no_spare_worker))";
  const std::string out = TempDir("record_out");
  const CommandResult r = d.Client({"compare", "--model", "linear", "--rtol", "1e-4", "--atol", "1e-5", "--rounds", "2",
                                    "--min-run-time", "0.05", "--fixed-length", "--output", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string id = SubmittedId(r.err);
  ASSERT_FALSE(id.empty()) << r.err;
  const v1::Job job = ShowJob(d, id);  // --json
  const v1::Timeline& t = job.timeline();
  EXPECT_EQ(t.started_at(), job.submitted_at());
  EXPECT_EQ(t.clock(), "std::chrono::steady_clock");

  // The daemon's phases around the worker's, which are the report's in the same order.
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  std::vector<std::string> expected = {"queue wait", worker_start, "LibTorch load"};
  for (const std::string& phase : PhaseNames(c->timeline())) expected.push_back(phase);
  expected.push_back("write result");
  EXPECT_EQ(PhaseNames(t), expected);

  double previous_end = 0;
  for (const v1::PhaseSpan& span : t.spans()) {
    EXPECT_GE(span.start_s(), previous_end) << span.phase();
    EXPECT_GE(span.end_s(), span.start_s()) << span.phase();
    previous_end = span.end_s();
  }
  EXPECT_GT(LastEnd(Spans(t, "LibTorch load")), FirstStart(Spans(t, "LibTorch load")));  // it takes time
  // The worker's timing spans as the daemon saw them hold the timed work. The daemon dates a
  // span when it reads the worker's phase line: reading the first one later than the last
  // one shortens the total by the difference, some ms on a loaded machine.
  constexpr double kLineReadLag_s = 0.03;
  EXPECT_GE(TotalSeconds(Spans(t, "timing")),
            c->before().timing().timed_total_s() + c->after().timing().timed_total_s() - kLineReadLag_s);

  // The evidence carries the record's timeline too, and its HTML draws both timelines.
  EXPECT_EQ(c->job_timeline().SerializeAsString(), t.SerializeAsString());
  const std::string html = Slurp(out + "/comparison.html");
  EXPECT_TRUE(absl::StrContains(html, "since the job was submitted at " + job.submitted_at())) << html.size();
  EXPECT_TRUE(absl::StrContains(html, "aria-labelledby=\"timeline-1-title timeline-1-desc\"")) << html.size();

  // `jobs show` prints one line per phase.
  const CommandResult shown = d.Client({"jobs", "show", id});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_TRUE(absl::StrContains(shown.out, "  timeline (seconds since " + job.submitted_at() + "):\n")) << shown.out;
  // (Phase names are cut at 40 columns there; the worker line has the whole reason.)
  for (const char* phase : {"queue wait", "worker start (cold: spare worker off", "LibTorch load", "timing candidate",
                            "check", "write result"})
    EXPECT_TRUE(absl::StrContains(shown.out, std::string("\n    ") + phase + " ")) << phase << "\n" << shown.out;
  EXPECT_TRUE(absl::StrContains(shown.out, "\n  worker: cold: spare worker off (no_spare_worker)\n")) << shown.out;
}

}  // namespace
}  // namespace torchscan::e2e
