#include "client/verdict_gate.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace torchscan {
namespace {

v1::Comparison WithLabel(v1::Comparison::LatencyChange label) {
  v1::Comparison c;
  c.set_latency_change(label);
  return c;
}

v1::Comparison WithClaim(v1::PairedEvidence::Claim claim) {
  v1::Comparison c = WithLabel(v1::Comparison::within_variability);
  c.mutable_evidence()->mutable_paired()->set_ci_low(0.9);
  c.mutable_evidence()->mutable_paired()->set_ci_high(1.1);
  c.mutable_evidence()->mutable_paired()->set_claim(claim);
  return c;
}

bool Fails(const v1::Comparison& c, FailOn fail_on, GateOn gate_on = GateOn::kLabel) {
  return GateFailure(c, {fail_on, gate_on}).has_value();
}

TEST(VerdictGate, EachGateFailsExactlyItsLabels) {
  const v1::Comparison faster = WithLabel(v1::Comparison::faster), slower = WithLabel(v1::Comparison::slower),
                       within = WithLabel(v1::Comparison::within_variability),
                       unavailable = WithLabel(v1::Comparison::unavailable);
  for (const v1::Comparison* c : {&faster, &slower, &within, &unavailable}) EXPECT_FALSE(Fails(*c, FailOn::kNever));
  EXPECT_FALSE(Fails(faster, FailOn::kSlower));
  EXPECT_TRUE(Fails(slower, FailOn::kSlower));
  EXPECT_FALSE(Fails(within, FailOn::kSlower));
  EXPECT_FALSE(Fails(unavailable, FailOn::kSlower));
  EXPECT_FALSE(Fails(faster, FailOn::kNotFaster));
  EXPECT_TRUE(Fails(slower, FailOn::kNotFaster));
  EXPECT_TRUE(Fails(within, FailOn::kNotFaster));
  EXPECT_TRUE(Fails(unavailable, FailOn::kNotFaster));
  EXPECT_TRUE(Fails(faster, FailOn::kAnyChange));
  EXPECT_TRUE(Fails(slower, FailOn::kAnyChange));
  EXPECT_FALSE(Fails(within, FailOn::kAnyChange));
  EXPECT_FALSE(Fails(unavailable, FailOn::kAnyChange));
}

TEST(VerdictGate, TheClaimGateReadsThePairedClaimNotTheLabel) {
  v1::Comparison slower = WithClaim(v1::PairedEvidence::slower);  // label: within_variability
  EXPECT_FALSE(Fails(slower, FailOn::kSlower, GateOn::kLabel));
  EXPECT_TRUE(Fails(slower, FailOn::kSlower, GateOn::kClaim));
  EXPECT_EQ(*GateFailure(slower, {FailOn::kSlower, GateOn::kClaim}), "--fail-on slower: the paired claim says slower");
  EXPECT_TRUE(Fails(WithClaim(v1::PairedEvidence::no_claim), FailOn::kNotFaster, GateOn::kClaim));
  EXPECT_FALSE(Fails(WithClaim(v1::PairedEvidence::faster), FailOn::kNotFaster, GateOn::kClaim));
  // No interval (saved reports, one pass, withheld): nothing to claim, so "unavailable".
  const v1::Comparison none = WithLabel(v1::Comparison::slower);
  EXPECT_EQ(GateVerdict(none, {FailOn::kNever, GateOn::kClaim}), "unavailable");
  EXPECT_FALSE(Fails(none, FailOn::kSlower, GateOn::kClaim));
  EXPECT_TRUE(Fails(none, FailOn::kNotFaster, GateOn::kClaim));
}

TEST(VerdictGate, SaysWhichGateAndVerdict) {
  EXPECT_EQ(*GateFailure(WithLabel(v1::Comparison::within_variability), {FailOn::kNotFaster, GateOn::kLabel}),
            "--fail-on not-faster: the label says within_variability");
}

TEST(VerdictGate, BadWordsNameTheFlagAndTheChoices) {
  EXPECT_EQ(*ParseFailOn("slower"), FailOn::kSlower);
  EXPECT_EQ(*ParseFailOn("not-faster"), FailOn::kNotFaster);
  EXPECT_EQ(*ParseFailOn("any-change"), FailOn::kAnyChange);
  EXPECT_EQ(*ParseFailOn(""), FailOn::kNever);
  for (const std::string bad : {"Slower", "faster", "not_faster", " slower"}) {
    const absl::StatusOr<FailOn> r = ParseFailOn(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message(), "--fail-on: \"" + bad + "\" is not a gate; use slower, not-faster or any-change");
  }
  EXPECT_EQ(*ParseGateOn("claim"), GateOn::kClaim);
  EXPECT_EQ(*ParseGateOn("label"), GateOn::kLabel);
  EXPECT_NE(ParseGateOn("paired").status().message().find("--gate-on: \"paired\""), std::string::npos);
  EXPECT_EQ(*ParseGateOn("instructions"), GateOn::kInstructions);
}

v1::Comparison WithInstructionChange(double relative, double spread = 0) {
  v1::Comparison c;
  v1::InstructionDiff* d = c.mutable_instructions();
  d->set_known(true);
  d->set_relative_change(relative);
  d->set_spread(spread);
  return c;
}

TEST(VerdictGate, InstructionsGateOnTheCountsChangeBeyondTheThreshold) {
  const GateOptions gate{FailOn::kSlower, GateOn::kInstructions, 0.01};
  EXPECT_EQ(GateVerdict(WithInstructionChange(0.02), gate), "slower");
  EXPECT_EQ(GateVerdict(WithInstructionChange(-0.02), gate), "faster");
  EXPECT_EQ(GateVerdict(WithInstructionChange(0.005), gate), "within_threshold");
  // A count that does not repeat within 3 % cannot show a 2 % change.
  EXPECT_EQ(GateVerdict(WithInstructionChange(0.02, 0.03), gate), "within_threshold");
  EXPECT_EQ(GateVerdict(v1::Comparison(), gate), "unavailable");
  EXPECT_EQ(*GateFailure(WithInstructionChange(0.02), gate),
            "--fail-on slower: the instruction count says slower (+2.00 % per call; threshold 1.00 %)");
  EXPECT_FALSE(GateFailure(WithInstructionChange(0.005), gate).has_value());
  EXPECT_TRUE(GateFailure(v1::Comparison(), {FailOn::kNotFaster, GateOn::kInstructions, 0.01}).has_value());
}

TEST(VerdictGate, InstructionThresholdIsAShare) {
  EXPECT_DOUBLE_EQ(*ParseInstructionThreshold("1%"), 0.01);
  EXPECT_DOUBLE_EQ(*ParseInstructionThreshold(" 0.5 % "), 0.005);
  EXPECT_DOUBLE_EQ(*ParseInstructionThreshold("0.02"), 0.02);
  EXPECT_EQ(ParseInstructionThreshold("-1%").status().message(),
            "--instruction-threshold: \"-1%\" is not a positive share; write 1% or 0.01");
  EXPECT_EQ(ParseInstructionThreshold("150%").status().message(),
            "--instruction-threshold: \"150%\" is above 100 %; write 1% or 0.01 for one per cent");
}

}  // namespace
}  // namespace torchscan
