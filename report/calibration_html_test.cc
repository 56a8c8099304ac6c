#include "report/calibration_html.h"

#include <gtest/gtest.h>

#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::report {
namespace {

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

v1::Calibration Calibration() {
  v1::Calibration c;
  c.set_schema_version(1);
  *c.mutable_noise_floor() = fixtures::NoiseFloor();
  c.mutable_noise_floor()->set_workload("linear <b>");
  for (const char* claim : {"no_claim", "faster"}) {
    v1::CalibrationPair* p = c.add_pairs();
    p->set_latency_change("within_variability");
    p->set_claim(claim);
    p->set_median_ratio(0.9876);
  }
  return c;
}

TEST(CalibrationHtml, ShowsTheFloorThePairsAndEachPairEscaped) {
  const std::string page = RenderCalibrationHtml(Calibration());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u) << page.substr(0, 200);
  EXPECT_TRUE(Has(page, "<h1>linear &lt;b&gt;</h1>"));
  EXPECT_FALSE(Has(page, "linear <b>"));
  EXPECT_TRUE(Has(page, "This machine resolves changes of about 3.1% or more"));
  EXPECT_TRUE(Has(page, "No forecast"));
  EXPECT_TRUE(Has(page, "<td>faster</td>"));
  EXPECT_TRUE(Has(page, "0.9876"));
  EXPECT_FALSE(Has(page, "<script"));
}

TEST(CalibrationHtml, TheForecastIsATable) {
  v1::Calibration c = Calibration();
  v1::DecisionForecast* f = c.mutable_noise_floor()->mutable_forecast();
  f->set_smallest_change(0.01);
  f->set_max_time_s(20);
  f->set_equivalent_share(0.94);
  f->set_resolvable_change(0.019);
  f->set_median_stop_s(6.2);
  const std::string page = RenderCalibrationHtml(c);
  EXPECT_TRUE(Has(page, "<th>changes claimed in 90 % of compares</th><td>1.9% or more</td>")) << page;
  EXPECT_TRUE(Has(page, "A compare at its defaults resolves changes of about 1.9% or more here"));
}

}  // namespace
}  // namespace torchscan::report
