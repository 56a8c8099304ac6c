#include "report/gbench_export.h"

#include <gtest/gtest.h>

#include <cmath>

#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "report/evidence_view.h"
#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::report {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

Struct Parse(const std::string& json) {
  Struct parsed;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &parsed);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json.substr(0, 2000);
  return parsed;
}

const Value& Field(const Struct& s, const std::string& name) {
  static const Value missing;
  const auto it = s.fields().find(name);
  EXPECT_NE(it, s.fields().end()) << name;
  return it == s.fields().end() ? missing : it->second;
}

TEST(GbenchExporter, ParsesWithEveryFieldCompareDotPyReads) {
  const v1::Comparison c = fixtures::PassedComparison();
  const Struct json = Parse(GbenchExporter().Render(c));
  const Struct& context = Field(json, "context").struct_value();
  EXPECT_EQ(Field(context, "host_name").string_value(), "lab-01");
  EXPECT_EQ(Field(context, "num_cpus").number_value(), 2);
  EXPECT_EQ(Field(context, "library_build_type").string_value(), "release");
  EXPECT_FALSE(Field(context, "cpu_scaling_enabled").bool_value());  // governor "performance"
  EXPECT_EQ(Field(context, "load_avg").list_value().values_size(), 3);

  const auto& benchmarks = Field(json, "benchmarks").list_value().values();
  ASSERT_EQ(benchmarks.size(), 24);
  for (int i = 0; i < benchmarks.size(); ++i) {
    const Struct& b = benchmarks[i].struct_value();
    const bool before = i < 12;
    const v1::TimingBlock& block = (before ? c.before() : c.after()).timing().blocks(i % 12);
    EXPECT_EQ(Field(b, "name").string_value(), before ? "baseline" : "candidate");
    EXPECT_EQ(Field(b, "run_name").string_value(), Field(b, "name").string_value());
    EXPECT_EQ(Field(b, "run_type").string_value(), "iteration");
    EXPECT_EQ(Field(b, "family_index").number_value(), before ? 0 : 1);
    EXPECT_EQ(Field(b, "repetitions").number_value(), 12);
    EXPECT_EQ(Field(b, "repetition_index").number_value(), i % 12);
    EXPECT_EQ(Field(b, "threads").number_value(), 1);
    EXPECT_EQ(Field(b, "iterations").number_value(), 1000);
    EXPECT_EQ(Field(b, "time_unit").string_value(), "ns");
    EXPECT_DOUBLE_EQ(Field(b, "real_time").number_value(), PerCallSeconds(block) * 1e9);
    EXPECT_EQ(Field(b, "cpu_time").number_value(), Field(b, "real_time").number_value());
  }
}

TEST(GbenchExporter, AComparisonsContextCarriesItsVerdictSentence) {
  const Struct compared = Parse(GbenchExporter().Render(fixtures::RoundsComparison()));
  EXPECT_EQ(
      Field(Field(compared, "context").struct_value(), "torchscan_summary").string_value().rfind("49.5% faster (", 0),
      0u);
  const Struct report = Parse(GbenchExporter().Render(fixtures::ReportAlone()));
  EXPECT_EQ(Field(report, "context").struct_value().fields().count("torchscan_summary"), 0u);
}

TEST(GbenchExporter, LeavesOutBlocksJsonCannotHold) {
  v1::BenchmarkReport r = fixtures::Report("r", 3, 1e-3, 1e-4);
  r.mutable_timing()->mutable_blocks(1)->set_calls(0);
  r.mutable_environment()->set_cpu_governor("powersave");
  r.mutable_environment()->clear_load_average_5m();
  const std::string text = GbenchExporter().Render(r);
  const Struct json = Parse(text);
  EXPECT_EQ(Field(json, "benchmarks").list_value().values_size(), 2);
  EXPECT_TRUE(Field(Field(json, "context").struct_value(), "cpu_scaling_enabled").bool_value());
  EXPECT_EQ(Field(Field(json, "context").struct_value(), "load_avg").list_value().values_size(), 2);
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  EXPECT_EQ(text.find("Infinity"), std::string::npos);
}

TEST(GbenchExporter, HostileNamesAreJsonEscaped) {
  v1::Comparison hostile = fixtures::HostileComparison();
  hostile.mutable_output_check()->set_status(v1::OutputCheck::passed);  // a failed check is refused
  ASSERT_TRUE(GbenchExporter().Accepts(hostile).ok());
  const std::string text = GbenchExporter().Render(hostile);
  const Struct json = Parse(text);
  const auto& benchmarks = Field(json, "benchmarks").list_value().values();
  ASSERT_EQ(benchmarks.size(), 6);
  EXPECT_EQ(Field(benchmarks[0].struct_value(), "name").string_value(), fixtures::HostileReport().name());
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
}

TEST(GbenchExporter, EqualNamesBecomeFilterableBeforeAndAfter) {
  v1::Comparison c = fixtures::PassedComparison();
  c.mutable_after()->set_name("baseline");
  const Struct json = Parse(GbenchExporter().Render(c));
  const auto& benchmarks = Field(json, "benchmarks").list_value().values();
  EXPECT_EQ(Field(benchmarks[0].struct_value(), "name").string_value(), "baseline/before");
  EXPECT_EQ(Field(benchmarks[23].struct_value(), "name").string_value(), "baseline/after");
}

TEST(GbenchExporter, AcceptsReportsAndComparisonsWhoseNumbersStand) {
  EXPECT_TRUE(GbenchExporter().Accepts(fixtures::ReportAlone()).ok());
  EXPECT_TRUE(GbenchExporter().Accepts(fixtures::PassedComparison()).ok());
  EXPECT_TRUE(GbenchExporter().Accepts(fixtures::UnknownDeltasComparison()).ok());
  v1::Comparison unchecked = fixtures::PassedComparison();
  unchecked.mutable_output_check()->set_status(v1::OutputCheck::not_provided);
  EXPECT_TRUE(GbenchExporter().Accepts(unchecked).ok());
}

// Refused (see render_by_format_test.cc for the message), and even an unchecked Render hands
// compare.py no blocks to compute the withheld deltas from.
TEST(GbenchExporter, AWithheldComparisonExportsNoBenchmarks) {
  for (const v1::Comparison& c :
       {fixtures::FailedCheckComparison(), fixtures::TamperedFailedComparison(), fixtures::IncompatibleComparison()}) {
    EXPECT_EQ(GbenchExporter().Accepts(c).code(), absl::StatusCode::kFailedPrecondition);
    const Struct json = Parse(GbenchExporter().Render(c));
    EXPECT_EQ(Field(json, "benchmarks").list_value().values_size(), 0);
    EXPECT_EQ(Field(Field(json, "context").struct_value(), "host_name").string_value(), "lab-01");
  }
}

}  // namespace
}  // namespace torchscan::report
