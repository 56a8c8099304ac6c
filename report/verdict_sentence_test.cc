#include "report/verdict_sentence.h"

#include <gtest/gtest.h>

#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::report {
namespace {

// A passed, compatible comparison: baseline median 10 ms, candidate `after_ms`, both IQRs
// `iqr_ms`, labelled by the guide's rule (core/compare.cc Label).
v1::Comparison Timed(double after_ms, double iqr_ms) {
  v1::Comparison c;
  c.mutable_output_check()->set_status(v1::OutputCheck::passed);
  c.mutable_compatibility()->set_compatible(true);
  for (auto [run, median] : {std::pair{c.mutable_before(), 10e-3}, std::pair{c.mutable_after(), after_ms * 1e-3}}) {
    run->mutable_timing()->add_blocks()->set_calls(1);
    run->mutable_timing()->mutable_summary()->set_median_s(median);
    run->mutable_timing()->mutable_summary()->set_iqr_s(iqr_ms * 1e-3);
  }
  const double change = after_ms - 10;
  c.set_latency_change(std::abs(change) <= iqr_ms ? v1::Comparison::within_variability
                       : change < 0               ? v1::Comparison::faster
                                                  : v1::Comparison::slower);
  c.mutable_evidence()->set_relative_change(change / 10);
  return c;
}

// Paired evidence over build pairs: median ratio and 90 % interval, at ±1 %.
void Paired(v1::PairedEvidence::Claim claim, double median, double low, double high, v1::Comparison* c,
            const std::string& stop_reason = "") {
  v1::PairedEvidence* p = c->mutable_evidence()->mutable_paired();
  p->set_claim(claim);
  p->set_median_ratio(median);
  p->set_ci_low(low);
  p->set_ci_high(high);
  p->set_confidence(0.9);
  p->set_min_claimed_change(0.01);
  p->set_resolvable_change((high - low) / 2);
  p->set_stop_reason(stop_reason);
  p->set_method("confidence sequence");
}

TEST(VerdictSentence, AClaimSmallerThanTheSpreadSaysWhyTheLabelIsWithinVariability) {
  v1::Comparison c = Timed(10.21, 0.53);
  Paired(v1::PairedEvidence::slower, 1.021, 1.012, 1.030, &c);
  EXPECT_EQ(VerdictSentence(c),
            "2.1% slower (90.0% interval 1.2% to 3.0%); smaller than the runs' spread (IQR 5.3% of the "
            "median), so the guide's label is within_variability.");
}

TEST(VerdictSentence, AFasterClaimGivesItsIntervalAsSpeedUps) {
  v1::Comparison c = Timed(5.0, 0.2);
  Paired(v1::PairedEvidence::faster, 0.505, 0.495, 0.52, &c);
  EXPECT_EQ(VerdictSentence(c),
            "49.5% faster (90.0% interval 48.0% to 50.5%); larger than the runs' spread (IQR 2.0% of the "
            "median), so the guide's label is faster too.");
}

TEST(VerdictSentence, EquivalenceIsNoChangeLargerThanTheSmallestThatMatters) {
  v1::Comparison c = Timed(10.01, 0.2);
  Paired(v1::PairedEvidence::equivalent, 1.002, 0.996, 1.006, &c);
  EXPECT_EQ(VerdictSentence(c),
            "No change larger than 1.0% (median 0.20% slower, 90.0% interval -0.40% to +0.60%); the guide's label "
            "is within_variability too (pooled change +0.10%, within the IQR 2.0% of the median).");
}

TEST(VerdictSentence, EquivalenceBesideALabelThatMovedExplainsTheLabel) {
  v1::Comparison c = Timed(10.15, 0.09);
  Paired(v1::PairedEvidence::equivalent, 1.002, 0.996, 1.006, &c);
  ASSERT_EQ(c.latency_change(), v1::Comparison::slower);
  const std::string s = VerdictSentence(c);
  EXPECT_NE(s.find("the guide's label is slower (pooled change +1.5%, more than the IQR 0.90% of the median)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("paired rounds"), std::string::npos) << s;
}

TEST(VerdictSentence, AClaimAgainstTheLabelSaysTheyDisagree) {
  v1::Comparison c = Timed(10.3, 0.1);
  Paired(v1::PairedEvidence::faster, 0.97, 0.96, 0.98, &c);
  const std::string s = VerdictSentence(c);
  EXPECT_EQ(s.rfind("3.0% faster (", 0), 0u) << s;
  EXPECT_NE(s.find("the guide's label says slower"), std::string::npos) << s;
  EXPECT_NE(s.find("the two disagree"), std::string::npos) << s;
}

TEST(VerdictSentence, UndecidedAtTheCapSaysWhyWithOneMedian) {
  v1::Comparison c = Timed(10.05, 0.3);
  Paired(v1::PairedEvidence::no_claim, 1.008, 0.995, 1.021, &c,
         "undecided at the time cap: 40 build pairs in 20.1 s (max_time_s 20)");
  EXPECT_EQ(VerdictSentence(c),
            "Undecided at \u00b11.0% when the time cap was reached (median 0.80% slower, 90.0% interval -0.50% to "
            "+2.1%, neither inside nor outside \u00b11.0%); the guide's label is within_variability (pooled change "
            "+0.50%, within the IQR 3.0% of the median).");
}

TEST(VerdictSentence, AWithheldClaimSaysWhy) {
  v1::Comparison c = Timed(10.05, 0.3);
  Paired(v1::PairedEvidence::no_claim, 0.97, 0.96, 0.98, &c);
  c.mutable_evidence()->mutable_paired()->set_note(
      "no claim: others used 61 % of CPUs 0-1 while it timed, above the 50 % limit in 7 of 10 build pairs");
  const std::string s = VerdictSentence(c);
  EXPECT_EQ(s.rfind("No paired claim (no claim: others used 61 % of CPUs 0-1 while it timed, above the 50 % limit in 7 "
                    "of 10 build pairs; median 3.0% faster, 90.0% interval",
                    0),
            0u)
      << s;
}

TEST(VerdictSentence, ALabelThePairedRoundsCannotConfirm) {
  v1::Comparison c = Timed(10.5, 0.1);
  v1::PairedEvidence* p = c.mutable_evidence()->mutable_paired();
  for (double r : {1.05, 0.98, 1.04}) p->add_round_ratios(r);
  p->set_note("an interval over build pairs needs 10 of them (has 3)");
  EXPECT_EQ(VerdictSentence(c),
            "No paired claim (an interval over build pairs needs 10 of them (has 3)); the guide's label is slower "
            "(median change +5.0%, more than "
            "the IQR 1.0% of the median), which the paired rounds do not confirm.");
}

TEST(VerdictSentence, WithheldNumbersGiveNoVerdictAndSayWhy) {
  EXPECT_EQ(VerdictSentence(fixtures::TamperedFailedComparison()).rfind("No speed verdict: the output check failed", 0),
            0u);
  const std::string incompatible = VerdictSentence(fixtures::IncompatibleComparison());
  EXPECT_EQ(incompatible.rfind("No speed verdict: the runs are not comparable (environment.cpu_model", 0), 0u)
      << incompatible;
  EXPECT_EQ(incompatible.find("faster"), std::string::npos) << incompatible;
}

TEST(VerdictSentence, TheExampleSinglePassHasTheGuidesLabelAlone) {
  EXPECT_EQ(VerdictSentence(fixtures::PassedComparison()),
            "Faster by the guide's rule (median change -92.4%, more than the IQR 5.2% of the median); no paired "
            "claim (no timing rounds to pair: the runs were timed in a single pass).");
  v1::Comparison within = Timed(10.2, 0.5);
  EXPECT_EQ(VerdictSentence(within),
            "Within variability by the guide's rule (median change +2.0%, within the IQR 5.0% of the median); no "
            "paired claim.");
}

// The fields every format shows under the sentence carry its words: no bare p-value, the
// claim and the label each with their own numbers.
TEST(VerdictFields, CarryTheSentencesWordsAndNoPValue) {
  v1::Comparison c = Timed(10.05, 0.3);
  Paired(v1::PairedEvidence::no_claim, 1.008, 0.995, 1.021, &c);
  c.mutable_evidence()->set_mann_whitney_p(8.9e-12);
  const std::vector<VerdictField> fields = VerdictFields(c);
  ASSERT_EQ(fields.size(), 4u);
  EXPECT_EQ(fields[0].key, "Output check");
  EXPECT_EQ(fields[1].key, "Paired rounds");
  EXPECT_EQ(fields[1].value, "undecided at \u00b11.0%");
  EXPECT_EQ(fields[1].detail, "median 0.80% slower, 90.0% interval -0.50% to +2.1%");
  EXPECT_EQ(fields[2].key, "Latency change");
  EXPECT_EQ(fields[2].value, "within_variability");
  EXPECT_EQ(fields[2].detail, "median change +0.50%, within the IQR 3.0% of the median");
  EXPECT_EQ(fields[3].value, "compatible");
  for (const VerdictField& f : fields) {
    EXPECT_EQ(f.value.find("p ="), std::string::npos) << f.key;
    EXPECT_EQ(f.detail.find("Mann-Whitney"), std::string::npos) << f.key;
  }
}

TEST(VerdictFields, AClaimIsItsDirectionWithItsInterval) {
  v1::Comparison c = Timed(5.0, 0.2);
  Paired(v1::PairedEvidence::faster, 0.505, 0.495, 0.52, &c);
  const std::vector<VerdictField> fields = VerdictFields(c);
  EXPECT_EQ(fields[1].value, "49.5% faster");
  EXPECT_EQ(fields[1].detail, "90.0% interval 48.0% to 50.5%");
  EXPECT_EQ(fields[1].tone, Tone::kGood);
  EXPECT_EQ(fields[2].value, "faster");
}

TEST(VerdictFields, WithheldNumbersAreWithheldInEveryField) {
  const std::vector<VerdictField> fields = VerdictFields(fixtures::TamperedFailedComparison());
  ASSERT_EQ(fields.size(), 3u);
  EXPECT_EQ(fields[0].value, "failed");
  EXPECT_EQ(fields[1].key, "Latency change");
  EXPECT_EQ(fields[1].value, "withheld");
  EXPECT_EQ(fields[1].detail, "because the output check failed");
}

}  // namespace
}  // namespace torchscan::report
