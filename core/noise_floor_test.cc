#include "core/noise_floor.h"

#include <string>
#include <vector>

#include "core/paired_ratio.h"
#include "gtest/gtest.h"

namespace torchscan {
namespace {

// With 5 rounds at 90 % the Hodges-Lehmann interval is [min, max] of the ratios, so a pair
// claims `slower` once min x (1 + d) > 1.01 and `faster` once max / (1 + d) < 1 / 1.01 (the
// claim's 1 % margin, kPairedMinClaimedChange): the expected values below follow from that by
// hand (boundaries kept off the 0.1 % grid).

TEST(EmpiricalResolvableChange, OnePairIsTheLargerOfBothDirections) {
  // slower: 1.01 / 0.97 - 1 = 0.0412 -> 0.042; faster: 1.0125 x 1.01 - 1 = 0.0226 -> 0.023.
  int used = -1;
  const std::optional<double> d = EmpiricalResolvableChange({{0.97, 1.0, 1.01, 1.0125, 0.99}}, 0.9, &used);
  ASSERT_TRUE(d.has_value());
  EXPECT_NEAR(*d, 0.042, 1e-9);
  EXPECT_EQ(used, 1);
}

TEST(EmpiricalResolvableChange, NinetyPercentOfThePairsIsEnough) {
  const std::vector<double> tight = {0.996, 1.0, 1.002, 1.0025, 0.999};  // slower 0.015, faster 0.013
  const std::vector<double> wide = {0.8, 1.0, 1.0, 1.0, 1.105};          // slower 0.263, faster 0.117
  std::vector<std::vector<double>> nine_tight(9, tight);
  nine_tight.push_back(wide);
  EXPECT_NEAR(*EmpiricalResolvableChange(nine_tight), 0.015, 1e-9);  // 9 of 10 claim at 1.5 %

  std::vector<std::vector<double>> eight_tight(8, tight);
  eight_tight.push_back(wide);
  eight_tight.push_back(wide);
  EXPECT_NEAR(*EmpiricalResolvableChange(eight_tight), 0.263, 1e-9);  // 8 of 10 is not 90 %
}

TEST(EmpiricalResolvableChange, TooFewRoundsIsUnknown) {
  int used = -1;
  EXPECT_FALSE(EmpiricalResolvableChange({{1.0, 1.0, 1.0, 1.0}, {}}, 0.9, &used).has_value());
  EXPECT_EQ(used, 0);
}

TEST(EmpiricalResolvableChange, NoiseBeyondTheGridIsUnknown) {
  // slower needs 1 / 0.4 - 1 = 150 %, past the grid's 100 %.
  EXPECT_FALSE(EmpiricalResolvableChange({{0.4, 1.0, 1.0, 1.0, 1.0}}).has_value());
}

v1::Comparison Pair(v1::Comparison::LatencyChange label, v1::PairedEvidence::Claim claim, double change,
                    const std::vector<double>& ratios) {
  v1::Comparison c;
  c.set_latency_change(label);
  c.mutable_evidence()->set_relative_change(change);
  c.mutable_evidence()->mutable_paired()->set_claim(claim);
  for (double r : ratios) c.mutable_evidence()->mutable_paired()->add_round_ratios(r);
  v1::BenchmarkReport* before = c.mutable_before();
  before->set_model("linear");
  (*before->mutable_workload())["execution_mode"] = "batch";
  (*before->mutable_workload())["seed"] = "0";  // not one of the facts named
  before->mutable_environment()->set_hostname("box");
  before->mutable_environment()->set_cpu_model("Some CPU");
  before->mutable_settings()->set_device("cpu");
  before->mutable_settings()->mutable_threads()->set_intra_op(1);
  before->mutable_settings()->mutable_threads()->set_inter_op(1);
  before->mutable_settings()->mutable_timing()->set_min_run_time_s(0.2);
  before->mutable_settings()->mutable_timing()->set_rounds(static_cast<int>(ratios.size()));
  return c;
}

TEST(ComputeNoiseFloor, RatesSpreadSettingsAndResolvableChange) {
  std::vector<v1::Comparison> pairs;
  const std::vector<double> ratios = {0.97, 1.0, 1.01, 1.0125, 0.99};  // 0.042, as above
  for (int i = 0; i < 20; ++i) {
    const auto label = i == 3   ? v1::Comparison::faster
                       : i == 7 ? v1::Comparison::slower
                                : v1::Comparison::within_variability;
    const auto claim = i == 7 ? v1::PairedEvidence::slower : v1::PairedEvidence::no_claim;
    pairs.push_back(Pair(label, claim, i * 0.01 - 0.05, ratios));  // -0.05 ... 0.14
  }
  const v1::NoiseFloor f = ComputeNoiseFloor(pairs);
  EXPECT_EQ(f.pairs(), 20);
  EXPECT_EQ(f.false_labels(), 2);
  EXPECT_DOUBLE_EQ(f.false_label_rate(), 0.1);
  EXPECT_EQ(f.false_claims(), 1);
  EXPECT_DOUBLE_EQ(f.false_claim_rate(), 0.05);
  EXPECT_NEAR(f.ratio_min(), -0.05, 1e-12);
  EXPECT_NEAR(f.ratio_p5(), -0.0405, 1e-12);  // h = 19 x 0.05 = 0.95
  EXPECT_NEAR(f.ratio_median(), 0.045, 1e-12);
  EXPECT_NEAR(f.ratio_p95(), 0.1305, 1e-12);  // h = 18.05
  EXPECT_NEAR(f.ratio_max(), 0.14, 1e-12);
  ASSERT_TRUE(f.has_resolvable_change()) << f.note();
  EXPECT_NEAR(f.resolvable_change(), 0.042, 1e-9);
  EXPECT_EQ(f.power(), 0.9);
  EXPECT_EQ(f.note(), "");
  EXPECT_EQ(f.hostname(), "box");
  EXPECT_EQ(f.cpu_model(), "Some CPU");
  EXPECT_EQ(f.device(), "cpu");
  EXPECT_EQ(f.min_run_time_s(), 0.2);
  EXPECT_EQ(f.rounds(), 5);
  EXPECT_EQ(f.intra_op_threads(), 1);
  EXPECT_EQ(f.workload(), "linear (execution_mode batch)");
  EXPECT_NE(f.method().find("Hodges-Lehmann"), std::string::npos) << f.method();
}

TEST(ComputeNoiseFloor, SingleRoundPairsHaveNoResolvableChangeAndSayWhy) {
  const v1::NoiseFloor f =
      ComputeNoiseFloor({Pair(v1::Comparison::within_variability, v1::PairedEvidence::no_claim, 0.01, {1.01})});
  EXPECT_FALSE(f.has_resolvable_change());
  EXPECT_NE(f.note().find("needs 5 rounds or more per pair (these have 1)"), std::string::npos) << f.note();
  EXPECT_EQ(f.false_labels(), 0);
}

TEST(ComputeNoiseFloor, NoPairsMeasuresNothing) {
  const v1::NoiseFloor f = ComputeNoiseFloor({});
  EXPECT_EQ(f.pairs(), 0);
  EXPECT_FALSE(f.has_resolvable_change());
  EXPECT_FALSE(f.note().empty());
}

// ---------------------------------------------------------------- staleness

constexpr double kWeek = 7 * 24 * 3600;

v1::NoiseFloor Floor() {
  v1::NoiseFloor f;
  f.set_measured_at("2026-12-01T10:00:00.000Z");
  f.set_device("cpu");
  f.set_min_run_time_s(0.2);
  f.set_rounds(10);
  f.set_intra_op_threads(1);
  f.set_inter_op_threads(1);
  return f;
}

NoiseFloorSettings Same() {
  NoiseFloorSettings s;
  s.device = "cpu";
  s.min_run_time_s = 0.2;
  s.rounds = 10;
  s.intra_op_threads = 1;
  s.inter_op_threads = 1;
  return s;
}

TEST(AttachNoiseFloor, FreshAtTheSameSettingsIsNotStale) {
  const v1::NoiseFloor f = AttachNoiseFloor(Floor(), Same(), "2026-12-01T11:00:00.000Z", kWeek);
  EXPECT_FALSE(f.stale());
  EXPECT_EQ(f.stale_reason(), "");
  EXPECT_DOUBLE_EQ(f.age_s(), 3600);
}

TEST(AttachNoiseFloor, OlderThanTheMaximumAgeIsStale) {
  const v1::NoiseFloor f = AttachNoiseFloor(Floor(), Same(), "2026-12-09T10:00:00.000Z", kWeek);
  EXPECT_TRUE(f.stale());
  EXPECT_EQ(f.stale_reason(), "older than 7 days (8 days)");
  EXPECT_DOUBLE_EQ(f.age_s(), 8 * 86400);
  EXPECT_FALSE(AttachNoiseFloor(Floor(), Same(), "2026-12-09T10:00:00.000Z", 9 * 86400).stale());
}

TEST(AttachNoiseFloor, OtherSettingsAreNamed) {
  NoiseFloorSettings other = Same();
  other.min_run_time_s = 0.05;
  other.rounds = 4;
  other.intra_op_threads = 2;
  other.device = "cuda:0";
  const v1::NoiseFloor f = AttachNoiseFloor(Floor(), other, "2026-12-01T10:00:01.000Z", kWeek);
  EXPECT_TRUE(f.stale());
  EXPECT_EQ(f.stale_reason(),
            "measured at other settings: device cpu (this run cuda:0), min_run_time_s 0.2 (this run 0.05), rounds 10 "
            "(this run 4), intra_op_threads 1 (this run 2)");
}

TEST(SettingsOfComparison, RoundsAreTheRoundsAskedFor) {
  v1::Comparison c = Pair(v1::Comparison::within_variability, v1::PairedEvidence::no_claim, 0.0, {1, 1, 1});
  EXPECT_EQ(SettingsOfComparison(c).rounds, 3);  // recorded without a plan: the rounds timed
  c.mutable_round_plan()->set_requested_rounds(40);
  c.mutable_round_plan()->set_rounds(3);  // a slow model: fewer planned
  EXPECT_EQ(SettingsOfComparison(c).rounds, 40);
}

TEST(AttachNoiseFloor, AMeasurementHasNoRoundsToDifferIn) {
  NoiseFloorSettings measurement = Same();
  measurement.rounds.reset();
  EXPECT_FALSE(AttachNoiseFloor(Floor(), measurement, "2026-12-01T10:00:01.000Z", kWeek).stale());
}

TEST(AttachNoiseFloor, BothReasonsAreJoined) {
  NoiseFloorSettings other = Same();
  other.inter_op_threads = 4;
  const v1::NoiseFloor f = AttachNoiseFloor(Floor(), other, "2026-12-20T10:00:00.000Z", kWeek);
  EXPECT_EQ(f.stale_reason(),
            "older than 7 days (19 days); measured at other settings: inter_op_threads 1 (this run 4)");
}

TEST(AttachNoiseFloor, AClockSteppedBackIsAgeZeroAndAnUnreadableTimeIsStale) {
  const v1::NoiseFloor back = AttachNoiseFloor(Floor(), Same(), "2026-11-30T10:00:00.000Z", kWeek);
  EXPECT_EQ(back.age_s(), 0);
  EXPECT_FALSE(back.stale());
  v1::NoiseFloor unreadable = Floor();
  unreadable.set_measured_at("yesterday");
  const v1::NoiseFloor f = AttachNoiseFloor(unreadable, Same(), "2026-12-01T10:00:00.000Z", kWeek);
  EXPECT_TRUE(f.stale());
  EXPECT_EQ(f.stale_reason(), "its age is unknown (measured_at \"yesterday\")");
}

TEST(AgedNoiseFloor, OnlyTheAgeCounts) {
  EXPECT_FALSE(AgedNoiseFloor(Floor(), "2026-12-02T10:00:00.000Z", kWeek).stale());
  EXPECT_DOUBLE_EQ(AgedNoiseFloor(Floor(), "2026-12-02T10:00:00.000Z", kWeek).age_s(), 86400);
  EXPECT_TRUE(AgedNoiseFloor(Floor(), "2027-01-02T10:00:00.000Z", kWeek).stale());
}

}  // namespace
}  // namespace torchscan
