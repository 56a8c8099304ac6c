#include "report/render_by_format.h"

#include <gtest/gtest.h>

#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan {
namespace {

TEST(RenderByFormat, EveryAcceptedNameGivesItsRenderer) {
  const Evidence evidence = fixtures::PassedComparison();
  for (const std::string& name : RenderFormats()) {
    const auto renderer = RenderByFormat(name);
    ASSERT_TRUE(renderer.ok()) << renderer.status();
    EXPECT_EQ((*renderer)->format(), name);
    EXPECT_FALSE((*renderer)->file_extension().empty());
    EXPECT_FALSE((*renderer)->Render(evidence).empty()) << name;
  }
  EXPECT_EQ(RenderFormats(), (std::vector<std::string>{"html", "terminal", "markdown", "csv", "gbench"}));
}

TEST(RenderByFormat, UnknownNameIsAnErrorNamingTheAcceptedFormats) {
  for (const char* name : {"xml", "HTML", ""}) {
    const auto renderer = RenderByFormat(name);
    ASSERT_FALSE(renderer.ok());
    EXPECT_EQ(renderer.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(renderer.status().message(),
              "unknown format \"" + std::string(name) + "\"; accepted formats: html, terminal, markdown, csv, gbench");
  }
}

TEST(RenderByFormat, ColourReachesTheTerminalRenderer) {
  const Evidence evidence = fixtures::PassedComparison();
  EXPECT_NE((*RenderByFormat("terminal", {.color = true}))->Render(evidence).find("\x1b["), std::string::npos);
  EXPECT_EQ((*RenderByFormat("terminal"))->Render(evidence).find("\x1b["), std::string::npos);
}

}  // namespace
}  // namespace torchscan
