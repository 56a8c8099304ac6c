#include "client/exit_codes.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace torchscan {
namespace {

TEST(ExitCodeFor, EachClassOfFailureHasItsCode) {
  EXPECT_EQ(ExitCodeFor(absl::OkStatus()), kExitOk);
  EXPECT_EQ(ExitCodeFor(absl::InvalidArgumentError("")), kExitBadInput);
  EXPECT_EQ(ExitCodeFor(absl::NotFoundError("")), kExitBadInput);
  EXPECT_EQ(ExitCodeFor(absl::FailedPreconditionError("")), kExitBadInput);
  EXPECT_EQ(ExitCodeFor(absl::UnavailableError("")), kExitUnreachable);
  EXPECT_EQ(ExitCodeFor(absl::DeadlineExceededError("")), kExitUnreachable);
  EXPECT_EQ(ExitCodeFor(absl::ResourceExhaustedError("")), kExitRefused);
  EXPECT_EQ(ExitCodeFor(absl::PermissionDeniedError("")), kExitRefused);
  EXPECT_EQ(ExitCodeFor(absl::UnauthenticatedError("")), kExitRefused);
  EXPECT_EQ(ExitCodeFor(absl::AbortedError("")), kExitJobFailed);
  EXPECT_EQ(ExitCodeFor(absl::InternalError("")), kExitJobFailed);
}

TEST(ExitCodes, TheFooterListsEveryCodeWithItsMeaning) {
  const std::string footer = ExitCodesFooter();
  ASSERT_EQ(AllExitCodes().size(), 8u);  // kExitOk .. kExitGateFailed (0-6) and kExitInterrupted (130)
  for (const ExitCodeMeaning& c : AllExitCodes())
    EXPECT_NE(footer.find(std::to_string(c.code) + " " + c.meaning), std::string::npos) << footer;
}

// The README's exit-code table must not drift from this file: one row "| `N` | meaning |"
// per code, and no row for a code that does not exist.
TEST(ExitCodes, TheReadmeTableListsEveryCode) {
  std::ifstream in(std::string(std::getenv("TEST_SRCDIR")) + "/torchscan/README.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  ASSERT_FALSE(readme.empty());
  for (const ExitCodeMeaning& c : AllExitCodes()) {
    const std::string row = "| `" + std::to_string(c.code) + "` | " + c.meaning + " |";
    EXPECT_NE(readme.find(row), std::string::npos) << "README.md lacks the row " << row;
  }
  size_t rows = 0;
  for (size_t at = readme.find("\n| `"); at != std::string::npos; at = readme.find("\n| `", at + 1))
    if (std::isdigit(static_cast<unsigned char>(readme[at + 4]))) ++rows;
  EXPECT_EQ(rows, AllExitCodes().size()) << "README.md has exit-code rows for codes that do not exist";
}

}  // namespace
}  // namespace torchscan
