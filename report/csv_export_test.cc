#include "report/csv_export.h"

#include <gtest/gtest.h>

#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan {
namespace {

v1::BenchmarkReport TwoBlocks(const std::string& name) {
  v1::BenchmarkReport r = fixtures::Report(name, 2, 1e-3, 1e-3);
  r.mutable_timing()->mutable_blocks(0)->set_calls(4);
  r.mutable_timing()->mutable_blocks(0)->set_duration_s(0.5);
  r.mutable_timing()->mutable_blocks(1)->set_calls(2);
  r.mutable_timing()->mutable_blocks(1)->set_duration_s(0.0012);
  return r;
}

TEST(CsvExporter, OneExactRowPerBlock) {
  EXPECT_EQ(CsvExporter().Render(TwoBlocks("baseline")),
            "run,block,calls,duration_s,per_call_s\n"
            "baseline,1,4,0.5,0.125\n"
            "baseline,2,2,0.0012,6e-04\n");  // the shortest form that reads back
}

TEST(CsvExporter, ComparisonListsBeforeThenAfterWithUniqueQuotedNames) {
  v1::Comparison c = fixtures::PassedComparison();
  *c.mutable_before() = TwoBlocks("base,line");
  *c.mutable_after() = TwoBlocks("base,line");
  c.mutable_after()->mutable_timing()->mutable_blocks(1)->set_calls(0);
  EXPECT_EQ(CsvExporter().Render(c),
            "run,block,calls,duration_s,per_call_s\n"
            "\"base,line/before\",1,4,0.5,0.125\n"
            "\"base,line/before\",2,2,0.0012,6e-04\n"
            "\"base,line/after\",1,4,0.5,0.125\n"
            "\"base,line/after\",2,0,0.0012,\n");
}

TEST(CsvExporter, KeepsEveryBlockOfALargeRun) {
  const std::string csv = CsvExporter().Render(fixtures::LargeComparison(10000, 1));
  size_t lines = 0;
  for (char ch : csv) lines += ch == '\n';
  EXPECT_EQ(lines, 1u + 2u * 10000u);
}

}  // namespace
}  // namespace torchscan
