#include "daemon/result_summary.h"

#include <gtest/gtest.h>

#include "report/machine_key.h"

namespace torchscan::daemon {
namespace {

v1::BenchmarkReport MadeRun(const std::string& model, double median_s, const std::string& blas) {
  v1::BenchmarkReport r;
  r.set_model(model);
  r.mutable_settings()->set_device("cpu");
  r.mutable_environment()->set_cpu_model("Xeon");
  r.mutable_environment()->set_blas_library(blas);
  v1::TimingSummary* s = r.mutable_timing()->mutable_summary();
  s->set_median_s(median_s);
  s->set_q1_s(median_s - 1e-6);
  s->set_q3_s(median_s + 2e-6);
  s->set_iqr_s(3e-6);
  s->set_block_count(12);
  return r;
}

TEST(SummaryOfResult, AMeasurementIsItsOneRun) {
  v1::JobResult result;
  *result.mutable_report() = MadeRun("resnet18", 0.004, "/usr/lib/libopenblas.so.0");
  const std::optional<v1::ResultSummary> summary = SummaryOfResult(result);
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->run(), "measured");
  EXPECT_EQ(summary->latency().median_s(), 0.004);
  EXPECT_EQ(summary->latency().q1_s(), 0.004 - 1e-6);
  EXPECT_EQ(summary->latency().q3_s(), 0.004 + 2e-6);
  EXPECT_EQ(summary->latency().iqr_s(), 3e-6);
  EXPECT_EQ(summary->latency().block_count(), 12);
  EXPECT_FALSE(summary->has_baseline_latency());
  EXPECT_EQ(summary->model(), "resnet18");
  EXPECT_EQ(summary->device(), "cpu");
  EXPECT_EQ(summary->machine(), report::MachineKey(result.report().environment()));
  EXPECT_NE(summary->machine().find("blas=libopenblas.so.0"), std::string::npos);
}

TEST(SummaryOfResult, AComparisonIsItsCandidateWithTheBaselinesMedianBeside) {
  v1::JobResult result;
  v1::Comparison* c = result.mutable_comparison();
  *c->mutable_before() = MadeRun("mlp.pt", 0.002, "/usr/lib/libopenblas.so.0");
  *c->mutable_after() = MadeRun("mlp_fused.pt", 0.001, "/opt/mkl/libmkl_rt.so");
  const std::optional<v1::ResultSummary> summary = SummaryOfResult(result);
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->run(), "candidate");
  // Each timing summary whole, the candidate's (after) as latency.
  EXPECT_EQ(summary->latency().SerializeAsString(), c->after().timing().summary().SerializeAsString());
  EXPECT_EQ(summary->baseline_latency().SerializeAsString(), c->before().timing().summary().SerializeAsString());
  EXPECT_EQ(summary->latency().median_s(), 0.001);
  EXPECT_EQ(summary->baseline_latency().median_s(), 0.002);
  EXPECT_EQ(summary->model(), "mlp_fused.pt");
  EXPECT_EQ(summary->machine(), report::MachineKey(c->after().environment()));
  EXPECT_NE(summary->machine().find("blas=libmkl_rt.so"), std::string::npos);
}

TEST(SummaryOfResult, NoneForACalibrationOrAnEmptyResult) {
  v1::JobResult calibration;
  calibration.mutable_calibration();
  EXPECT_FALSE(SummaryOfResult(calibration).has_value());
  EXPECT_FALSE(SummaryOfResult(v1::JobResult()).has_value());
}

}  // namespace
}  // namespace torchscan::daemon
