#include "client/exit_codes.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace torchscan
