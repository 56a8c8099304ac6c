#include "core/workloads/fingerprint.h"

#include <gtest/gtest.h>

namespace torchscan::workloads {
namespace {

TEST(Fingerprint, MatchesFnv1a64ReferenceValues) {
  // Reference values of 64-bit FNV-1a.
  EXPECT_EQ(Fingerprint(""), "fnv1a64:cbf29ce484222325");
  EXPECT_EQ(Fingerprint("a"), "fnv1a64:af63dc4c8601ec8c");
  EXPECT_NE(Fingerprint("module v1"), Fingerprint("module v2"));
}

TEST(Fingerprint, UnreadableFileIsNotFoundNamingTheField) {
  const auto result = FingerprintFile("/nonexistent/model.pt", "model.torchscript.path");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(result.status().message().find("model.torchscript.path"), absl::string_view::npos);
  EXPECT_NE(result.status().message().find("/nonexistent/model.pt"), absl::string_view::npos);
}

}  // namespace
}  // namespace torchscan::workloads
