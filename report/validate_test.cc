// What a loaded timeline and paired evidence must hold (report/validate.h), through the
// validators every loader calls.
#include "report/validate.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::report {
namespace {

constexpr int kVersion = 1;  // the fixtures' schema_version
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(ValidateTimeline, TheFixturesTimelinesAndAbsentOnesAreValid) {
  EXPECT_TRUE(ValidateReport(fixtures::ReportAlone(), kVersion).ok());
  EXPECT_TRUE(ValidateComparison(fixtures::PassedComparison(), kVersion).ok());
  EXPECT_TRUE(ValidateComparison(fixtures::FailedCheckComparison(), kVersion).ok());  // none saved
  v1::Timeline no_spans;  // evidence from before timelines, or a comparison of saved reports
  EXPECT_TRUE(ValidateTimeline(no_spans, "timeline").ok());
}

TEST(ValidateTimeline, ANameMayRepeatAndSpansMayTouch) {
  v1::Timeline t = fixtures::PassedComparison().timeline();
  v1::PhaseSpan again = t.spans(3);  // timing candidate, as in a second round
  again.set_start_s(t.spans(3).end_s());
  again.set_end_s(again.start_s());  // zero length
  t.mutable_spans()->Add()->CopyFrom(again);
  // Appended after the check: its start is the earlier end, so move it past the check's end.
  t.mutable_spans(t.spans_size() - 1)->set_start_s(t.spans(t.spans_size() - 2).end_s());
  t.mutable_spans(t.spans_size() - 1)->set_end_s(t.spans(t.spans_size() - 2).end_s());
  EXPECT_TRUE(ValidateTimeline(t, "timeline").ok()) << ValidateTimeline(t, "timeline");
}

// A job with --rss as experiment/experiment.cc records it now: both RSS children (concurrent spans)
// begin first, overlap each other and the builds, and end before the first timing phase.
v1::Timeline ConcurrentRssTimeline() {
  v1::Timeline t;
  t.set_started_at("2024-05-02T10:00:30.000Z");
  auto add = [&t](const std::string& phase, double start_s, double end_s, bool concurrent) {
    v1::PhaseSpan* span = t.add_spans();
    span->set_phase(phase);
    span->set_start_s(start_s);
    span->set_end_s(end_s);
    span->set_concurrent(concurrent);
  };
  add("rss baseline", 0.0625, 1.25, true);
  add("rss candidate", 0.0625, 1.5, true);
  add("build baseline", 0.125, 0.5, false);
  add("build candidate", 0.5, 0.75, false);
  add("wait for rss", 0.75, 1.5, false);
  add("timing baseline", 1.5, 2, false);  // touches the candidate's child: no overlap
  add("timing candidate", 2, 2.5, false);
  return t;
}

TEST(ValidateTimeline, ConcurrentSpansMayOverlapAnythingButTiming) {
  v1::Timeline t = ConcurrentRssTimeline();
  EXPECT_TRUE(ValidateTimeline(t, "timeline").ok()) << ValidateTimeline(t, "timeline");

  // The candidate's child still running when timing began: refused, naming both phases.
  t.mutable_spans(1)->set_end_s(1.75);
  absl::Status s = ValidateTimeline(t, "timeline");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().find("timeline.spans[1]: "), 0u) << s;
  EXPECT_NE(s.message().find("\"rss candidate\""), std::string::npos) << s;
  EXPECT_NE(s.message().find("overlaps timing phase \"timing baseline\""), std::string::npos) << s;

  // A warm-up is timing too; a child started after timing, during the diagnostics, is fine.
  t = ConcurrentRssTimeline();
  t.mutable_spans(5)->set_phase("warm-up baseline");
  t.mutable_spans(1)->set_end_s(1.625);
  EXPECT_NE(ValidateTimeline(t, "timeline").message().find("overlaps timing phase \"warm-up baseline\""),
            std::string::npos);
  t = ConcurrentRssTimeline();
  v1::PhaseSpan* late = t.add_spans();
  late->set_phase("rss late");
  late->set_start_s(2.5);
  late->set_end_s(3);
  late->set_concurrent(true);
  EXPECT_TRUE(ValidateTimeline(t, "timeline").ok()) << ValidateTimeline(t, "timeline");

  // Without the mark, the candidate's child is one of the worker's own phases: the build that
  // began while it ran is refused.
  t = ConcurrentRssTimeline();
  t.mutable_spans(1)->set_concurrent(false);
  s = ValidateTimeline(t, "timeline");
  EXPECT_EQ(s.message().find("timeline.spans[2].start_s: "), 0u) << s;
  EXPECT_NE(s.message().find("before the previous span ends"), std::string::npos) << s;

  // Listed in the order they began, concurrent or not.
  t = ConcurrentRssTimeline();
  t.mutable_spans()->SwapElements(1, 2);
  s = ValidateTimeline(t, "timeline");
  EXPECT_EQ(s.message().find("timeline.spans[2].start_s: "), 0u) << s;
  EXPECT_NE(s.message().find("order the phases began"), std::string::npos) << s;
}

struct Broken {
  std::string what;
  std::function<void(v1::Timeline*)> edit;
  std::string field;  // the error starts with "<field>: "
  std::string says;   // and holds this
};

TEST(ValidateTimeline, EachBrokenTimelineIsRefusedNamingTheField) {
  const std::vector<Broken> cases = {
      {"no started_at", [](v1::Timeline* t) { t->clear_started_at(); }, "timeline.started_at", "missing"},
      {"unnamed phase", [](v1::Timeline* t) { t->mutable_spans(2)->clear_phase(); }, "timeline.spans[2].phase",
       "missing"},
      {"NaN start", [](v1::Timeline* t) { t->mutable_spans(0)->set_start_s(kNaN); }, "timeline.spans[0].start_s",
       "finite"},
      {"negative start", [](v1::Timeline* t) { t->mutable_spans(0)->set_start_s(-1); }, "timeline.spans[0].start_s",
       ">= 0"},
      {"infinite end", [](v1::Timeline* t) { t->mutable_spans(4)->set_end_s(std::numeric_limits<double>::infinity()); },
       "timeline.spans[4].end_s", "finite"},
      {"end before start", [](v1::Timeline* t) { t->mutable_spans(5)->set_end_s(t->spans(5).start_s() - 0.001); },
       "timeline.spans[5].end_s", ">= start_s"},
      {"overlap", [](v1::Timeline* t) { t->mutable_spans(3)->set_start_s(t->spans(2).end_s() - 0.25); },
       "timeline.spans[3].start_s", "before the previous span ends"},
      {"out of order", [](v1::Timeline* t) { t->mutable_spans()->SwapElements(3, 4); }, "timeline.spans[4].start_s",
       "order"},
  };
  ASSERT_EQ(cases.size(), 8u);
  for (const Broken& c : cases) {
    v1::Comparison comparison = fixtures::PassedComparison();
    c.edit(comparison.mutable_timeline());
    const absl::Status s = ValidateComparison(comparison, kVersion);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.what;
    EXPECT_EQ(s.message().find(c.field + ": "), 0u) << c.what << ": " << s;
    EXPECT_NE(s.message().find(c.says), std::string::npos) << c.what << ": " << s;

    // The same timeline in a report, and in a comparison's run, is named where it sits.
    v1::BenchmarkReport report = fixtures::ReportAlone();
    *report.mutable_timeline() = comparison.timeline();
    EXPECT_EQ(ValidateReport(report, kVersion).message().find(c.field + ": "), 0u) << c.what;
    v1::Comparison saved = fixtures::PassedComparison();
    saved.clear_timeline();
    *saved.mutable_after()->mutable_timeline() = comparison.timeline();
    EXPECT_EQ(ValidateComparison(saved, kVersion).message().find("after." + c.field + ": "), 0u) << c.what;

    // And as the job's timeline that torchscand adds (job_timeline).
    v1::Comparison with_job = fixtures::PassedComparison();
    *with_job.mutable_job_timeline() = comparison.timeline();
    EXPECT_EQ(ValidateComparison(with_job, kVersion).message().find("job_" + c.field + ": "), 0u) << c.what;
    v1::BenchmarkReport report_with_job = fixtures::ReportAlone();
    *report_with_job.mutable_job_timeline() = comparison.timeline();
    EXPECT_EQ(ValidateReport(report_with_job, kVersion).message().find("job_" + c.field + ": "), 0u) << c.what;
  }
}

v1::TimingLoad SampledLoad(double share) {
  v1::TimingLoad load;
  load.set_other_cpu_share(share);
  load.set_other_cpu_s(share * 2);
  load.set_interval_s(1);
  load.set_cpus("0-1");
  load.set_cpu_count(2);
  load.set_loadavg_1m_start(0.5);
  load.set_loadavg_1m_end(0.7);
  return load;
}

TEST(ValidateLoad, AbsentOrSampledLoadsAreValidRoundingIncluded) {
  for (double share : {0.0, 0.38, 1.0, -0.005, 1.005}) {
    v1::Comparison c = fixtures::PassedComparison();
    *c.mutable_before()->mutable_timing()->mutable_load() = SampledLoad(share);
    EXPECT_TRUE(ValidateComparison(c, kVersion).ok()) << share << ": " << ValidateComparison(c, kVersion);
  }
}

TEST(ValidateLoad, EachBrokenLoadIsRefusedNamingTheField) {
  const std::vector<std::pair<std::function<void(v1::TimingLoad*)>, std::string>> cases = {
      {[](v1::TimingLoad* l) { l->set_other_cpu_share(kNaN); }, "after.timing.load.other_cpu_share: "},
      {[](v1::TimingLoad* l) { l->set_other_cpu_share(1.2); }, "after.timing.load.other_cpu_share: "},
      {[](v1::TimingLoad* l) { l->set_other_cpu_share(-0.05); }, "after.timing.load.other_cpu_share: "},
      {[](v1::TimingLoad* l) { l->set_other_cpu_s(kNaN); }, "after.timing.load.other_cpu_s: "},
      {[](v1::TimingLoad* l) { l->set_interval_s(-1); }, "after.timing.load.interval_s: "},
      {[](v1::TimingLoad* l) { l->set_cpu_count(0); }, "after.timing.load.cpu_count: "},
      {[](v1::TimingLoad* l) { l->set_loadavg_1m_end(-1); }, "after.timing.load.loadavg_1m_end: "},
  };
  for (const auto& [edit, field] : cases) {
    v1::Comparison c = fixtures::PassedComparison();
    v1::TimingLoad* load = c.mutable_after()->mutable_timing()->mutable_load();
    *load = SampledLoad(0.1);
    edit(load);
    const absl::Status s = ValidateComparison(c, kVersion);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << field;
    EXPECT_EQ(s.message().find(field), 0u) << s;
  }
}

TEST(ValidatePairedEvidence, TheFixturesPairedEvidenceIsValid) {
  for (const v1::Comparison& c : {fixtures::RoundsComparison(), fixtures::PassedComparison(),
                                  fixtures::FailedCheckComparison(), fixtures::IncompatibleComparison()})
    EXPECT_TRUE(ValidateComparison(c, kVersion).ok()) << ValidateComparison(c, kVersion);
  EXPECT_TRUE(ValidatePairedEvidence(v1::PairedEvidence(), "evidence.paired").ok());  // older files have none
}

TEST(ValidatePairedEvidence, EachBrokenFieldIsRefusedNamingIt) {
  struct Broken {
    std::string what;
    std::function<void(v1::PairedEvidence*)> edit;
    std::string field, says;
  };
  const std::vector<Broken> cases = {
      {"negative ratio", [](v1::PairedEvidence* p) { p->set_round_ratios(2, -0.5); }, "evidence.paired.round_ratios[2]",
       "finite ratio > 0"},
      {"NaN median", [](v1::PairedEvidence* p) { p->set_median_ratio(kNaN); }, "evidence.paired.median_ratio",
       "finite ratio > 0"},
      {"one end only", [](v1::PairedEvidence* p) { p->clear_ci_high(); }, "evidence.paired.ci_high", "both ends"},
      {"ends swapped", [](v1::PairedEvidence* p) { p->set_ci_low(0.6); }, "evidence.paired.ci_low", "above ci_high"},
      {"confidence above 1", [](v1::PairedEvidence* p) { p->set_confidence(90); }, "evidence.paired.confidence",
       "probability"},
      {"achieved below stated", [](v1::PairedEvidence* p) { p->set_achieved_confidence(0.5); },
       "evidence.paired.achieved_confidence", "below the stated confidence"},
      {"negative resolvable", [](v1::PairedEvidence* p) { p->set_resolvable_change(-0.1); },
       "evidence.paired.resolvable_change", ">= 0"},
      {"faster across 1", [](v1::PairedEvidence* p) { p->set_ci_high(1.2); }, "evidence.paired.claim", "ci_high < 1"},
      {"slower below 1", [](v1::PairedEvidence* p) { p->set_claim(v1::PairedEvidence::slower); },
       "evidence.paired.claim", "ci_low > 1"},
  };
  for (const Broken& c : cases) {
    v1::Comparison comparison = fixtures::RoundsComparison();
    c.edit(comparison.mutable_evidence()->mutable_paired());
    const absl::Status s = ValidateComparison(comparison, kVersion);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.what;
    EXPECT_EQ(s.message().find(c.field + ": "), 0u) << c.what << ": " << s;
    EXPECT_NE(s.message().find(c.says), std::string::npos) << c.what << ": " << s;
  }
}

// A comparison ended by its output check before timing: both runs untimed, valid only there.
TEST(ValidateComparison, RunsNotTimedOnlyWhereTheCheckFailedBeforeTiming) {
  v1::Comparison c = fixtures::FailedCheckComparison();
  for (v1::BenchmarkReport* r : {c.mutable_before(), c.mutable_after()}) {
    r->mutable_timing()->Clear();
    v1::Warning* w = r->add_warnings();
    w->set_code(kNotTimedWarning);
    w->set_message("not timed: the output check failed before timing");
  }
  EXPECT_TRUE(ValidateComparison(c, 1).ok()) << ValidateComparison(c, 1);
  v1::Comparison passed = c;
  passed.mutable_output_check()->set_status(v1::OutputCheck::passed);
  const absl::Status s = ValidateComparison(passed, 1);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("before.warnings: say the run was not timed"), std::string::npos) << s;
  v1::Comparison timed_anyway = fixtures::FailedCheckComparison();
  *timed_anyway.mutable_before()->add_warnings() = c.before().warnings(0);
  EXPECT_NE(ValidateComparison(timed_anyway, 1).message().find("before.timing.blocks: present"), std::string::npos);
}

}  // namespace
}  // namespace torchscan::report
