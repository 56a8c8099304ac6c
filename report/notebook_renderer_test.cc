#include "report/notebook_renderer.h"

#include <gtest/gtest.h>

#include <string>

#include "report/html_renderer.h"
#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::report {
namespace {

TEST(NotebookRenderer, AComparisonOfManyBlocksStaysSmallAndSaysTheVerdictFirst) {
  const v1::Comparison c = fixtures::LargeComparison(100'000, 300);
  const std::string full = HtmlRenderer().Render(c);
  const std::string cell = NotebookRenderer().Render(c);
  EXPECT_LT(cell.size(), 150u * 1024) << "full page " << full.size();
  EXPECT_LT(cell.size() * 5, full.size());
  // The sentence leads, the plot and deltas follow, the raw blocks and profile stay in the page.
  const size_t sentence = cell.find("id=\"verdict-sentence\"");
  ASSERT_NE(sentence, std::string::npos);
  EXPECT_LT(sentence, cell.find("<svg"));
  EXPECT_NE(cell.find("Deltas (after - before)"), std::string::npos);
  EXPECT_EQ(cell.find("raw-blocks"), std::string::npos);
  EXPECT_NE(cell.find("r.save(folder)"), std::string::npos);
}

TEST(NotebookRenderer, IsAFragmentWhoseStyleTouchesOnlyItself) {
  const std::string cell = NotebookRenderer().Render(fixtures::PassedComparison());
  EXPECT_EQ(cell.rfind("<div class=\"torchscan-nb\"><style>", 0), 0u) << cell.substr(0, 80);
  EXPECT_EQ(cell.find("<html"), std::string::npos);
  EXPECT_EQ(cell.find("<body"), std::string::npos);
  const std::string style = cell.substr(0, cell.find("</style>"));
  // Every rule starts with the root class: no bare body, table or * rule for the notebook.
  size_t rules = 0;
  for (size_t at = style.find('}'); at != std::string::npos; at = style.find('}', at + 1)) {
    const size_t next = at + 1 < style.size() && style[at + 1] == '\n' ? at + 2 : at + 1;
    if (next >= style.size()) break;
    EXPECT_EQ(style.compare(next, 13, ".torchscan-nb"), 0) << style.substr(next, 40);
    ++rules;
  }
  EXPECT_GT(rules, 20u);
}

TEST(NotebookRenderer, AReportShowsItsCardsAndPlot) {
  const std::string cell = NotebookRenderer().Render(fixtures::ReportAlone());
  EXPECT_NE(cell.find("Median per call"), std::string::npos);
  EXPECT_NE(cell.find("<svg"), std::string::npos);
  EXPECT_NE(cell.find("report.html"), std::string::npos);
}

}  // namespace
}  // namespace torchscan::report
