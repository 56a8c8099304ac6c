#include "report/render_by_format.h"

#include <gtest/gtest.h>

#include "core/number_format.h"
#include "report/evidence_view.h"
#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::report {
namespace {

TEST(RenderByFormat, EveryAcceptedNameGivesItsRenderer) {
  const Evidence evidence = fixtures::PassedComparison();
  ASSERT_EQ(RenderFormats(), (std::vector<std::string>{"html", "terminal", "markdown", "csv", "gbench", "notebook"}));
  for (const std::string& name : RenderFormats()) {
    const auto renderer = RenderByFormat(name);
    ASSERT_TRUE(renderer.ok()) << renderer.status();
    EXPECT_EQ((*renderer)->format(), name);
    EXPECT_FALSE((*renderer)->file_extension().empty());
    EXPECT_FALSE((*renderer)->Render(evidence).empty()) << name;
  }
}

TEST(RenderByFormat, UnknownNameIsAnErrorNamingTheAcceptedFormats) {
  for (const char* name : {"xml", "HTML", ""}) {
    const auto renderer = RenderByFormat(name);
    ASSERT_FALSE(renderer.ok());
    EXPECT_EQ(renderer.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(renderer.status().message(), "unknown format \"" + std::string(name) +
                                               "\"; accepted formats: html, terminal, markdown, csv, gbench, notebook");
  }
}

TEST(RenderByFormat, ColourReachesTheTerminalRenderer) {
  const Evidence evidence = fixtures::PassedComparison();
  EXPECT_NE((*RenderByFormat("terminal", {.color = true}))->Render(evidence).find("\x1b["), std::string::npos);
  EXPECT_EQ((*RenderByFormat("terminal"))->Render(evidence).find("\x1b["), std::string::npos);
}

// The numbers the runs of the withheld fixtures would show if they stood: each delta and
// ratio the tampered file holds, its relative change, p-value and reason, as people read them
// (`human`) and as programs do (`program`; spellings shorter than 6 characters such as "0.1"
// are left out, they also occur in version numbers).
struct Numbers {
  std::vector<std::string> human, program;
};

Numbers WithheldNumbers() {
  const v1::Comparison tampered = fixtures::TamperedFailedComparison();
  const v1::LatencyEvidence& e = tampered.evidence();
  Numbers n;
  n.human = {FormatPercent(e.relative_change()), FormatProbability(e.mann_whitney_p()),
             tampered.latency_change_reason()};
  std::vector<double> raw = {e.relative_change(), e.mann_whitney_p()};
  for (const v1::MetricDelta& d : tampered.deltas()) {
    if (!d.known() || d.delta() == 0) continue;
    n.human.push_back(FormatSignedMetric(d.delta(), d.unit()));
    n.human.push_back(FormatRatio(d.ratio()));
    raw.push_back(d.delta());
    raw.push_back(d.ratio());
  }
  for (double value : raw)
    if (ShortestDouble(value).size() >= 6) n.program.push_back(ShortestDouble(value));
  return n;
}

// The probe is real: the same runs with a passed check show every human number in HTML.
TEST(RenderByFormat, WithheldNumbersAreWhatAPassedComparisonShows) {
  const std::string page = (*RenderByFormat("html"))->Render(fixtures::PassedComparison());
  const Numbers numbers = WithheldNumbers();
  ASSERT_GT(numbers.human.size(), 10u);
  ASSERT_GT(numbers.program.size(), 5u);
  for (const std::string& text : numbers.human) EXPECT_NE(page.find(text), std::string::npos) << text;
}

class WithheldInEveryFormat : public ::testing::TestWithParam<std::string> {};

// A failed check (as core saves it, and edited to hold numbers anyway) and runs that are not
// comparable: no format shows a delta, ratio, relative change, p-value or speed label; each
// says why; only Google Benchmark JSON refuses, naming the reason and the way out.
TEST_P(WithheldInEveryFormat, NoNumberOrLabelAndTheReasonShown) {
  const std::string format = GetParam();
  const auto renderer = RenderByFormat(format);
  ASSERT_TRUE(renderer.ok());
  const Numbers numbers = WithheldNumbers();
  ASSERT_GT(numbers.human.size(), 10u);  // as in WithheldNumbersAreWhatAPassedComparisonShows
  ASSERT_GT(numbers.program.size(), 5u);
  for (const v1::Comparison& c :
       {fixtures::FailedCheckComparison(), fixtures::TamperedFailedComparison(), fixtures::IncompatibleComparison()}) {
    const Withheld withheld = WithheldBecause(c);
    ASSERT_NE(withheld, Withheld::kNone);
    const std::string out = (*renderer)->Render(c);
    EXPECT_FALSE(out.empty());
    EXPECT_FALSE(NamesSpeedLabel(out)) << format << ": names a speed label";
    EXPECT_EQ(out.find("\u00d7"), std::string::npos) << format << ": a ratio";
    for (const auto* texts : {&numbers.human, &numbers.program})
      for (const std::string& text : *texts) EXPECT_EQ(out.find(text), std::string::npos) << format << ": " << text;

    const absl::Status accepts = (*renderer)->Accepts(c);
    if (format == "gbench") {
      EXPECT_EQ(accepts.code(), absl::StatusCode::kFailedPrecondition);
      EXPECT_NE(accepts.message().find(WithheldText(withheld)), std::string::npos) << accepts.message();
      // Mismatches to name exactly when the runs are not comparable (IncompatibleComparison's three).
      EXPECT_EQ(c.compatibility().mismatches_size(), withheld == Withheld::kCheckFailed ? 0 : 3);
      for (const v1::Mismatch& m : c.compatibility().mismatches())
        EXPECT_NE(accepts.message().find(m.field()), std::string::npos) << accepts.message();
      if (withheld == Withheld::kCheckFailed) {
        EXPECT_NE(accepts.message().find(c.output_check().message()), std::string::npos) << accepts.message();
      }
      EXPECT_NE(accepts.message().find("exported one by one"), std::string::npos) << accepts.message();
    } else {
      EXPECT_TRUE(accepts.ok()) << format << ": " << accepts;
    }
    if (format == "csv") {
      const std::string columns =
          withheld == Withheld::kCheckFailed ? ",failed,compatible," : ",passed,not comparable,";
      EXPECT_NE(out.find(columns), std::string::npos) << out.substr(0, 300);
    } else if (format != "gbench") {
      EXPECT_NE(out.find(absl::StrCat("because ", WithheldText(withheld))), std::string::npos) << format;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, WithheldInEveryFormat, ::testing::ValuesIn(RenderFormats()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(RenderByFormat, EveryFormatAcceptsReportsAndComparisonsWhoseNumbersStand) {
  ASSERT_EQ(RenderFormats().size(), 6u);
  for (const std::string& name : RenderFormats())
    for (const Evidence& e : {Evidence(fixtures::ReportAlone()), Evidence(fixtures::PassedComparison())})
      EXPECT_TRUE((*RenderByFormat(name))->Accepts(e).ok()) << name;
}

}  // namespace
}  // namespace torchscan::report
