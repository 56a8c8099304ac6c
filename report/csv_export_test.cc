#include "report/csv_export.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::report {
namespace {

v1::BenchmarkReport TwoBlocks(const std::string& name) {
  v1::BenchmarkReport r = fixtures::Report(name, 2, 1e-3, 1e-3);
  r.mutable_timing()->mutable_blocks(0)->set_calls(4);
  r.mutable_timing()->mutable_blocks(0)->set_duration_s(0.5);
  r.mutable_timing()->mutable_blocks(1)->set_calls(2);
  r.mutable_timing()->mutable_blocks(1)->set_duration_s(0.0012);
  return r;
}

constexpr char kHeader[] =
    "run,block,calls,duration_s,per_call_s,output_check,compatibility,mismatches,round,summary\n";

TEST(CsvExporter, OneExactRowPerBlock) {
  EXPECT_EQ(CsvExporter().Render(TwoBlocks("baseline")),
            std::string(kHeader) +
                "baseline,1,4,0.5,0.125,n/a,n/a,n/a,,n/a\n"       // a plain report has no check or comparability
                "baseline,2,2,0.0012,6e-04,n/a,n/a,n/a,,n/a\n");  // the shortest form that reads back
}

TEST(CsvExporter, ComparisonListsBeforeThenAfterWithUniqueQuotedNames) {
  v1::Comparison c = fixtures::PassedComparison();
  *c.mutable_before() = TwoBlocks("base,line");
  *c.mutable_after() = TwoBlocks("base,line");
  c.mutable_after()->mutable_timing()->mutable_blocks(1)->set_calls(0);
  // Every row ends with the comparison's verdict sentence (report/verdict_sentence.h), quoted.
  const std::string summary =
      ",\"Faster by the guide's rule (median change -92.4%, more than the IQR 33.3% of the median); no paired claim "
      "(no timing rounds to pair: the runs were timed in a single pass).\"\n";
  EXPECT_EQ(CsvExporter().Render(c), std::string(kHeader) + "\"base,line/before\",1,4,0.5,0.125,passed,compatible,," +
                                         summary + "\"base,line/before\",2,2,0.0012,6e-04,passed,compatible,," +
                                         summary + "\"base,line/after\",1,4,0.5,0.125,passed,compatible,," + summary +
                                         "\"base,line/after\",2,0,0.0012,,passed,compatible,," + summary);
}

// Every row of a withheld comparison says why; the raw blocks stay, no delta is added.
TEST(CsvExporter, EveryRowCarriesTheCheckStatusAndComparability) {
  v1::Comparison failed = fixtures::FailedCheckComparison();
  *failed.mutable_before() = TwoBlocks("baseline");
  *failed.mutable_after() = TwoBlocks("candidate");
  const std::string no_verdict =
      ",No speed verdict: the output check failed (max abs diff 0.5 exceeds atol 1e-05 (rtol 1e-04)).\n";
  EXPECT_EQ(CsvExporter().Render(failed), std::string(kHeader) + "baseline,1,4,0.5,0.125,failed,compatible,," +
                                              no_verdict + "baseline,2,2,0.0012,6e-04,failed,compatible,," +
                                              no_verdict + "candidate,1,4,0.5,0.125,failed,compatible,," + no_verdict +
                                              "candidate,2,2,0.0012,6e-04,failed,compatible,," + no_verdict);
  v1::Comparison incompatible = fixtures::IncompatibleComparison();
  *incompatible.mutable_before() = TwoBlocks("baseline");
  *incompatible.mutable_after() = TwoBlocks("candidate");
  const std::string tail =
      ",passed,not comparable,environment.cpu_model; environment.libtorch_version; environment.device_name,,"
      "\"No speed verdict: the runs are not comparable (environment.cpu_model (AMD EPYC 7B13 vs Intel(R) Xeon(R) "
      "Gold 6338), environment.libtorch_version (1.13.1 vs 2.1.0), environment.device_name (AMD EPYC 7B13 vs "
      "Intel(R) Xeon(R) Gold 6338)).\"\n";
  EXPECT_EQ(CsvExporter().Render(incompatible), std::string(kHeader) + "baseline,1,4,0.5,0.125" + tail +
                                                    "baseline,2,2,0.0012,6e-04" + tail + "candidate,1,4,0.5,0.125" +
                                                    tail + "candidate,2,2,0.0012,6e-04" + tail);
  v1::Comparison unchecked = fixtures::PassedComparison();
  unchecked.mutable_output_check()->set_status(v1::OutputCheck::not_provided);
  EXPECT_NE(CsvExporter().Render(unchecked).find(",not provided,compatible,,,"), std::string::npos);
}

TEST(CsvExporter, EachBlockOfARunTimedInRoundsNamesItsRound) {
  v1::Comparison c = fixtures::PassedComparison();
  *c.mutable_before() = fixtures::Report("baseline", 3, 1e-3, 1e-3);
  *c.mutable_after() = fixtures::Report("candidate", 3, 1e-3, 1e-3);
  for (v1::BenchmarkReport* run : {c.mutable_before(), c.mutable_after()}) {
    v1::TimingRound* first = run->mutable_timing()->add_rounds();
    first->set_round(1);
    first->set_block_count(2);
    v1::TimingRound* second = run->mutable_timing()->add_rounds();
    second->set_round(2);
    second->set_first_block(2);
    second->set_block_count(1);
  }
  std::vector<std::string> rounds;  // the round column (the ninth) of each row, header excluded
  const std::string csv = CsvExporter().Render(c);
  for (size_t start = csv.find('\n') + 1; start < csv.size();) {
    const size_t end = csv.find('\n', start);
    size_t field = start;
    for (int i = 0; i < 8; ++i) field = csv.find(',', field) + 1;
    rounds.push_back(csv.substr(field, csv.find(',', field) - field));
    start = end + 1;
  }
  EXPECT_EQ(rounds, (std::vector<std::string>{"1", "1", "2", "1", "1", "2"})) << csv;
}

TEST(CsvExporter, KeepsEveryBlockOfALargeRun) {
  const std::string csv = CsvExporter().Render(fixtures::LargeComparison(10000, 1));
  size_t lines = 0;
  for (char ch : csv) lines += ch == '\n';
  EXPECT_EQ(lines, 1u + 2u * 10000u);
}

}  // namespace
}  // namespace torchscan::report
