#include "client/compare_forecast.h"

#include <gtest/gtest.h>

#include "spec/workload_key.h"

namespace torchscan {
namespace {

v1::NoiseFloor Floor() {
  v1::NoiseFloor floor;
  floor.set_measured_at("2026-12-02T08:10:00Z");
  floor.set_workload("linear (execution_mode batch)");
  v1::DecisionForecast* f = floor.mutable_forecast();
  f->set_smallest_change(0.01);
  f->set_max_time_s(20);
  f->set_equivalent_share(0.94);
  f->set_median_stop_s(6.24);
  f->set_resolvable_change(0.019);
  return floor;
}

v1::JobSpec Compare() {
  v1::JobSpec spec;
  spec.mutable_compare();
  return spec;
}

TEST(CompareExpectation, ADefaultCompareGetsTheForecast) {
  EXPECT_EQ(CompareExpectation(Compare(), Floor()),
            "expected here: changes of about 1.9% or more are claimed, and with no change it decides equivalent at "
            "\u00b11.0% after about 6.2 s (20 s at most; 94% decide within it); from the noise floor of "
            "2026-12-02T08:10:00Z, linear (execution_mode batch)");
}

TEST(CompareExpectation, OtherSettingsAndStalenessAreSaid) {
  v1::JobSpec spec = Compare();
  spec.mutable_compare()->set_smallest_change(0.02);
  v1::NoiseFloor floor = Floor();
  floor.set_stale(true);
  floor.set_stale_reason("older than 7 days (8 days)");
  const std::string line = CompareExpectation(spec, floor);
  EXPECT_NE(line.find("; forecast at \u00b11.0% and 20 s, this compare asks \u00b12.0% and 20 s"), std::string::npos)
      << line;
  EXPECT_NE(line.find(", stale: older than 7 days (8 days)"), std::string::npos) << line;
}

TEST(CompareExpectation, AFloorOfAnotherWorkloadIsSaidToBeOfAnother) {
  v1::JobSpec spec = Compare();
  spec.mutable_compare()->mutable_baseline()->mutable_model()->mutable_torchscript()->set_module_bytes("cnn");
  v1::NoiseFloor floor = Floor();
  v1::WorkloadSpec linear;
  linear.mutable_model()->set_builtin(v1::ModelSpec::linear);
  floor.set_workload_key(spec::WorkloadKey(linear));
  const std::string other = CompareExpectation(spec, floor);
  EXPECT_NE(other.find(", not this compare's workload: "), std::string::npos) << other;
  EXPECT_NE(other.find("`torchscan-client calibrate` with the baseline's model"), std::string::npos) << other;
  *spec.mutable_compare()->mutable_baseline() = linear;
  EXPECT_EQ(CompareExpectation(spec, floor).find("not this compare's"), std::string::npos) << "the same workload";
}

TEST(CompareExpectation, NothingWhereNoForecastApplies) {
  v1::JobSpec fixed = Compare();
  fixed.mutable_compare()->set_fixed_length(true);
  EXPECT_EQ(CompareExpectation(fixed, Floor()), "");
  v1::JobSpec single = Compare();
  single.mutable_compare()->set_rounds(1);
  EXPECT_EQ(CompareExpectation(single, Floor()), "");
  v1::JobSpec measure;
  measure.mutable_measure();
  EXPECT_EQ(CompareExpectation(measure, Floor()), "");
  EXPECT_EQ(CompareExpectation(Compare(), v1::NoiseFloor()), "");
}

}  // namespace
}  // namespace torchscan
