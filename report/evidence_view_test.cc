#include "report/evidence_view.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "google/protobuf/util/message_differencer.h"
#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::report {
namespace {

using google::protobuf::util::MessageDifferencer;

TEST(Runs, AReportIsOneRunAComparisonIsBeforeThenAfter) {
  const Evidence report = fixtures::ReportAlone();
  ASSERT_EQ(Runs(report).size(), 1u);
  EXPECT_EQ(Runs(report)[0].role, "report");
  EXPECT_EQ(Runs(report)[0].name, "baseline");
  EXPECT_EQ(ComparisonOf(report), nullptr);

  v1::Comparison c = fixtures::PassedComparison();
  c.mutable_after()->clear_name();
  const Evidence comparison = c;
  const std::vector<RunView> runs = Runs(comparison);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].role, "before");
  EXPECT_EQ(runs[0].name, "baseline");
  EXPECT_EQ(runs[1].name, "after");  // the role stands in for an empty name
  EXPECT_EQ(runs[1].report, &std::get<v1::Comparison>(comparison).after());
}

TEST(Timelines, TheEvidencesOwnThenEachRunsAndNoneWithoutSpans) {
  const std::vector<TimelineView> report = Timelines(fixtures::ReportAlone());
  ASSERT_EQ(report.size(), 1u);
  EXPECT_EQ(report[0].run, "");
  EXPECT_EQ(report[0].timeline->spans_size(), 5);

  const Evidence job = fixtures::PassedComparison();
  const std::vector<TimelineView> comparison = Timelines(job);
  ASSERT_EQ(comparison.size(), 1u);
  EXPECT_EQ(comparison[0].run, "");
  EXPECT_EQ(comparison[0].timeline, &std::get<v1::Comparison>(job).timeline());

  v1::Comparison saved = fixtures::PassedComparison();
  saved.clear_timeline();
  *saved.mutable_before()->mutable_timeline() = fixtures::ReportAlone().timeline();
  *saved.mutable_after()->mutable_timeline() = fixtures::ReportAlone().timeline();
  const std::vector<TimelineView> runs = Timelines(saved);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].run, "before: baseline");
  EXPECT_EQ(runs[1].run, "after: candidate");

  v1::Comparison empty = fixtures::PassedComparison();
  empty.mutable_timeline()->clear_spans();  // started_at alone: nothing to show
  EXPECT_TRUE(Timelines(empty).empty());
  EXPECT_TRUE(Timelines(fixtures::FailedCheckComparison()).empty());
}

TEST(EvidenceTitle, LabelAndModelTellRunsApart) {
  v1::BenchmarkReport report = fixtures::ReportAlone();
  EXPECT_EQ(EvidenceTitle(report), "baseline");  // no label, no model: the name as before
  report.set_model("mlp.pt");
  EXPECT_EQ(EvidenceTitle(report), "baseline (mlp.pt)");
  report.set_label("mlp v1");
  EXPECT_EQ(EvidenceTitle(report), "mlp v1 (mlp.pt)");

  // Two saved measurements compared: their labels, not "measurement -> measurement".
  v1::Comparison c = fixtures::PassedComparison();
  c.mutable_before()->set_name("measurement");
  c.mutable_after()->set_name("measurement");
  c.mutable_before()->set_label("mlp v1");
  c.mutable_after()->set_label("mlp v2");
  c.mutable_after()->set_model("mlp_opt.pt");
  // The fixture's change (the guide's example: per-sample forwards against one batch) is named.
  const std::string change = " (execution_mode per-sample forwards + torch.stack \u2192 one batched forward)";
  EXPECT_EQ(EvidenceTitle(c), "mlp v1 \u2192 mlp v2 (mlp_opt.pt)" + change);

  // One job's comparison: the label leads once, the runs keep their roles' names.
  c.set_label("freeze trial");
  c.mutable_before()->set_label("freeze trial");
  c.mutable_after()->set_label("freeze trial");
  c.mutable_before()->set_name("baseline");
  c.mutable_after()->set_name("candidate");
  EXPECT_EQ(EvidenceTitle(c), "freeze trial: baseline \u2192 candidate (mlp_opt.pt)" + change);
  EXPECT_EQ(Runs(c)[1].name, "candidate");  // names (for --run and exports) are unchanged
}

// The title names the change that was made, not only the files (one file made both runs here).
TEST(EvidenceTitle, NamesWhatElseDiffersBetweenTheRuns) {
  v1::Comparison c = fixtures::PassedComparison();
  c.clear_changed_settings();
  c.set_label("");
  c.mutable_before()->set_label("");
  c.mutable_after()->set_label("");
  c.mutable_before()->set_model("cnn.pt");
  c.mutable_after()->set_model("cnn.pt");
  const auto change = [&c](const std::string& name, const std::string& before, const std::string& after) {
    v1::SettingChange* s = c.add_changed_settings();
    s->set_name(name);
    s->set_before(before);
    s->set_after(after);
  };
  change("workload.model_source", "/a/cnn.pt", "/a/cnn.pt (copy)");  // the titles name files already
  EXPECT_EQ(EvidenceTitle(c), "baseline (cnn.pt) \u2192 candidate (cnn.pt)");
  change("workload.channels_last", "false", "true");
  EXPECT_EQ(EvidenceTitle(c), "baseline (cnn.pt) \u2192 candidate (cnn.pt) (channels_last false \u2192 true)");
  change("workload.dtype", "float32", "bfloat16");
  change("settings.threads.intra_op", "1", "2");
  change("workload.freeze", "", "true");
  EXPECT_EQ(EvidenceTitle(c),
            "baseline (cnn.pt) \u2192 candidate (cnn.pt) (channels_last false \u2192 true, dtype float32 \u2192 "
            "bfloat16, settings.threads.intra_op 1 \u2192 2, +1 more)");
}

TEST(WithheldBecause, AFailedCheckComesFirstThenIncompatibility) {
  EXPECT_EQ(WithheldBecause(fixtures::PassedComparison()), Withheld::kNone);
  EXPECT_EQ(WithheldBecause(fixtures::FailedCheckComparison()), Withheld::kCheckFailed);
  EXPECT_EQ(WithheldBecause(fixtures::IncompatibleComparison()), Withheld::kIncompatible);
  v1::Comparison both = fixtures::IncompatibleComparison();
  both.mutable_output_check()->set_status(v1::OutputCheck::failed);
  EXPECT_EQ(WithheldBecause(both), Withheld::kCheckFailed);
  EXPECT_STREQ(WithheldText(Withheld::kCheckFailed), "the output check failed");
}

TEST(WithheldDetail, NamesTheFailedCheckAndEachMismatch) {
  EXPECT_EQ(WithheldDetail(fixtures::PassedComparison()), "");
  EXPECT_EQ(WithheldDetail(fixtures::FailedCheckComparison()),
            "the output check failed (max abs diff 0.5 exceeds atol 1e-05 (rtol 1e-04))");
  EXPECT_EQ(WithheldDetail(fixtures::IncompatibleComparison()),
            "the runs are not comparable (environment.cpu_model (AMD EPYC 7B13 vs Intel(R) Xeon(R) Gold 6338), "
            "environment.libtorch_version (1.13.1 vs 2.1.0), environment.device_name (AMD EPYC 7B13 vs Intel(R) "
            "Xeon(R) Gold 6338))");
  v1::Comparison both = fixtures::IncompatibleComparison();
  both.mutable_output_check()->set_status(v1::OutputCheck::failed);
  both.mutable_output_check()->set_message("");
  both.mutable_compatibility()->clear_mismatches();
  EXPECT_EQ(WithheldDetail(both), "the output check failed; the runs are not comparable (mismatches not named)");
}

TEST(SelectRun, ByRoleOrNameAsAPlainReport) {
  const Evidence c = fixtures::FailedCheckComparison();
  for (const char* run : {"before", "baseline"}) {
    const absl::StatusOr<v1::BenchmarkReport> r = SelectRun(c, run);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(MessageDifferencer::Equals(*r, std::get<v1::Comparison>(c).before())) << run;
  }
  for (const char* run : {"after", "candidate"}) {
    const absl::StatusOr<v1::BenchmarkReport> r = SelectRun(c, run);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->name(), "candidate") << run;
  }
  v1::Comparison odd = fixtures::PassedComparison();
  odd.mutable_before()->set_name("after");  // a role wins over a name
  EXPECT_EQ(SelectRun(odd, "after")->name(), "candidate");
}

TEST(SelectRun, UnknownAmbiguousOrAReportIsAnErrorSayingWhatToChoose) {
  const absl::StatusOr<v1::BenchmarkReport> unknown = SelectRun(fixtures::PassedComparison(), "middle");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.status().message(),
            "no run named \"middle\"; choose before (\"baseline\") or after (\"candidate\")");
  v1::Comparison same = fixtures::PassedComparison();
  same.mutable_after()->set_name("baseline");
  EXPECT_EQ(SelectRun(same, "baseline").status().message(), "both runs are named \"baseline\": choose before or after");
  const absl::StatusOr<v1::BenchmarkReport> report = SelectRun(fixtures::ReportAlone(), "before");
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(report.status().message().find("single report"), std::string::npos);
}

TEST(NotesToShow, LeavesOutNotesNamingAWithheldLabel) {
  int left_out = -1;
  EXPECT_EQ(NotesToShow(fixtures::PassedComparison(), &left_out).size(), 2u);
  EXPECT_EQ(left_out, 0);
  const std::vector<std::string> notes = NotesToShow(fixtures::FailedCheckComparison(), &left_out);
  EXPECT_EQ(left_out, 1);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_FALSE(NamesSpeedLabel(notes[0]));
  EXPECT_TRUE(NamesSpeedLabel("it got FASTER"));
  EXPECT_TRUE(NamesSpeedLabel("within variability"));
}

TEST(ExportNames, UniqueWithinAComparison) {
  EXPECT_EQ(ExportNames(fixtures::PassedComparison()), (std::vector<std::string>{"baseline", "candidate"}));
  v1::Comparison same = fixtures::PassedComparison();
  same.mutable_after()->set_name("baseline");
  EXPECT_EQ(ExportNames(same), (std::vector<std::string>{"baseline/before", "baseline/after"}));
  v1::BenchmarkReport unnamed = fixtures::ReportAlone();
  unnamed.clear_name();
  EXPECT_EQ(ExportNames(unnamed), std::vector<std::string>{"report"});
}

TEST(OperatorsBySelfTime, DescendingWithNaNLastAndTiesByName) {
  v1::OperatorProfile p;
  for (const auto& [name, self] : std::vector<std::pair<std::string, double>>{
           {"b", 1.0}, {"nan", NAN}, {"a", 1.0}, {"big", 5.0}, {"small", 0.5}}) {
    v1::OperatorStat* op = p.add_operators();
    op->set_name(name);
    op->set_self_time_s(self);
  }
  std::vector<std::string> order;
  for (const v1::OperatorStat* op : OperatorsBySelfTime(p)) order.push_back(op->name());
  EXPECT_EQ(order, (std::vector<std::string>{"big", "a", "b", "small", "nan"}));
}

TEST(PerCallSeconds, DividesOrIsNaNWithoutCalls) {
  v1::TimingBlock b;
  b.set_calls(4);
  b.set_duration_s(0.5);
  EXPECT_EQ(PerCallSeconds(b), 0.125);
  b.set_calls(0);
  EXPECT_TRUE(std::isnan(PerCallSeconds(b)));
}

TEST(FieldTexts, FormatsByNameAndPresence) {
  v1::Environment e = fixtures::ReportAlone().environment();
  e.clear_physical_cores();
  std::map<std::string, std::string> fields;
  for (const auto& [k, v] : FieldTexts(e)) fields[k] = v;
  EXPECT_EQ(fields["memory_bytes"], "24.00 GiB");
  EXPECT_EQ(fields["logical_cores"], "2");
  EXPECT_EQ(fields["physical_cores"], "unknown");
  EXPECT_EQ(fields["libtorch_cuda"], "no");
  EXPECT_EQ(fields["cpu_model"], "AMD EPYC 7B13");
  v1::TimingSettings t;
  t.set_min_run_time_s(0.2);
  std::map<std::string, std::string> timing;
  for (const auto& [k, v] : FieldTexts(t)) timing[k] = v;
  EXPECT_EQ(timing["min_run_time_s"], "200.0 ms");
  EXPECT_EQ(timing["min_blocks"], "0");
}

TEST(PairedSummaryText, StatesClaimIntervalAndResolutionOrWhyNot) {
  EXPECT_EQ(PairedSummaryText(fixtures::RoundsComparison().evidence().paired()),
            "faster at 90.0%: median ratio 0.505\u00d7 over 6 rounds, interval 0.495\u00d7 to 0.52\u00d7 (exact "
            "confidence 90.6%), resolves changes of \u00b11.3%");
  EXPECT_EQ(PairedSummaryText(fixtures::PassedComparison().evidence().paired()),
            "no_claim: no timing rounds to pair: the runs were timed in a single pass");
  v1::PairedEvidence few;
  few.set_confidence(0.9);
  few.set_note("needs at least 5 rounds at 90% (has 2)");
  few.add_round_ratios(0.5);
  few.add_round_ratios(0.7);
  few.set_median_ratio(0.6);
  EXPECT_EQ(PairedSummaryText(few),
            "no_claim: needs at least 5 rounds at 90% (has 2); median ratio 0.6\u00d7 over 2 rounds");
  EXPECT_EQ(PairedSummaryText(v1::PairedEvidence()), "not recorded");
}

TEST(PairedDetailText, IsTheSummaryWithoutItsClaimForAClaimColumn) {
  EXPECT_EQ(PairedDetailText(fixtures::RoundsComparison().evidence().paired()).rfind("at 90.0%: median ratio 0.505", 0),
            0u);
  EXPECT_EQ(PairedDetailText(fixtures::PassedComparison().evidence().paired()),
            "no timing rounds to pair: the runs were timed in a single pass");
  EXPECT_EQ(PairedDetailText(v1::PairedEvidence()), "not recorded");
}

}  // namespace
}  // namespace torchscan::report
