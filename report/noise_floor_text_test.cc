#include "report/noise_floor_text.h"

#include <gtest/gtest.h>

#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::report {
namespace {

TEST(DescribeNoiseFloor, OneSentenceOfWhatTheMachineResolves) {
  EXPECT_EQ(DescribeNoiseFloor(fixtures::NoiseFloor()),
            "This machine resolves changes of about 3.1% or more (paired claim, 90% power); the guide's label called 2 "
            "of 20 A/A pairs faster or slower (noise floor of 2026-12-01 10:00 UTC: 20 pairs, min_run_time 0.2 s, 10 "
            "rounds, 1 thread).");
}

TEST(DescribeNoiseFloor, AForecastOfACompareAtItsDefaultsIsTheOneFigure) {
  v1::NoiseFloor f = fixtures::NoiseFloor();
  v1::DecisionForecast* forecast = f.mutable_forecast();
  forecast->set_smallest_change(0.01);
  forecast->set_max_time_s(20);
  forecast->set_equivalent_share(0.94);
  forecast->set_median_stop_s(6.24);
  forecast->set_resolvable_change(0.019);
  EXPECT_EQ(DescribeNoiseFloor(f),
            "A compare at its defaults resolves changes of about 1.9% or more here (claimed in 90% of simulated "
            "compares within 20 s; with no change it decides equivalent at \u00b11.0% in 94% of them, after about 6.2 "
            "s); the guide's label called 2 of 20 A/A pairs faster or slower (noise floor of 2026-12-01 "
            "10:00 UTC: 20 pairs, min_run_time 0.2 s, 10 rounds, 1 thread).");
  forecast->clear_resolvable_change();  // nothing resolved within 50 %: the pairs' own figure
  EXPECT_EQ(DescribeNoiseFloor(f).rfind("This machine resolves changes of about 3.1% or more", 0), 0u);
}

TEST(DescribeNoiseFloor, StaleIsSaidFirstWithWhy) {
  v1::NoiseFloor f = fixtures::NoiseFloor();
  f.set_stale(true);
  f.set_stale_reason("measured at other settings: min_run_time_s 0.2 (this run 0.05)");
  EXPECT_EQ(DescribeNoiseFloor(f).find("Stale noise floor (measured at other settings: min_run_time_s 0.2 (this run "
                                       "0.05)): This machine resolves"),
            0u)
      << DescribeNoiseFloor(f);
}

TEST(DescribeNoiseFloor, UnknownResolvableChangeGivesTheNoteAndOtherDevicesAreNamed) {
  v1::NoiseFloor f = fixtures::NoiseFloor();
  f.clear_resolvable_change();
  f.set_note("resolvable_change unknown: the paired claim needs 5 rounds or more per pair (these have 1)");
  f.set_rounds(1);
  f.set_pairs(1);
  f.set_false_labels(0);
  f.set_intra_op_threads(4);
  f.set_device("cuda:0");
  f.set_measured_at("yesterday");
  EXPECT_EQ(
      DescribeNoiseFloor(f),
      "This machine's resolvable change is unknown (resolvable_change unknown: the paired claim needs 5 rounds or "
      "more per pair (these have 1)); the guide's label called 0 of 1 A/A pair faster or slower (noise floor of "
      "yesterday: 1 pair, min_run_time 0.2 s, 1 round, 4 threads, cuda:0).");
}

TEST(NoiseFloorOf, AComparisonsOrAReportsOrNone) {
  v1::Comparison c;
  EXPECT_EQ(NoiseFloorOf(Evidence(c)), nullptr);
  *c.mutable_noise_floor() = fixtures::NoiseFloor();
  const Evidence with(c);
  ASSERT_NE(NoiseFloorOf(with), nullptr);
  EXPECT_EQ(NoiseFloorOf(with)->pairs(), 20);
  v1::BenchmarkReport r;
  EXPECT_EQ(NoiseFloorOf(Evidence(r)), nullptr);
  *r.mutable_noise_floor() = fixtures::NoiseFloor();
  EXPECT_NE(NoiseFloorOf(Evidence(r)), nullptr);
}

}  // namespace
}  // namespace torchscan::report
