#include "spec/field_rules.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace torchscan::spec {
namespace {

TEST(FieldError, NamesTheFieldFirst) {
  const absl::Status s = FieldError("--threads", "must be 1..4, got 9");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "--threads: must be 1..4, got 9");
}

TEST(CheckThreadCount, ZeroIsTheDefaultOnlyWhereAllowed) {
  EXPECT_TRUE(CheckThreadCount("threads.intra_op", 0, 8, true).ok());
  EXPECT_EQ(CheckThreadCount("--threads", 0, 8, false).message(), "--threads: must be 1..8, got 0");
  EXPECT_TRUE(CheckThreadCount("--threads", 8, 8, false).ok());
  EXPECT_EQ(CheckThreadCount("threads.inter_op", 9, 8, true).message(),
            "threads.inter_op: must be 0 (default) or 1..8, got 9");
  EXPECT_EQ(CheckThreadCount("t", -1, 8, true).message(), "t: must be 0 (default) or 1..8, got -1");
}

TEST(IsTolerance, FiniteAndNotNegative) {
  EXPECT_TRUE(IsTolerance(0));
  EXPECT_TRUE(IsTolerance(1e-5));
  EXPECT_FALSE(IsTolerance(-1e-9));
  EXPECT_FALSE(IsTolerance(std::nan("")));
  EXPECT_FALSE(IsTolerance(std::numeric_limits<double>::infinity()));
}

TEST(IsOwnInputMetadataKey, SeedAndTheInputFields) {
  EXPECT_TRUE(IsOwnInputMetadataKey("seed"));
  EXPECT_TRUE(IsOwnInputMetadataKey("input.x.seed"));
  EXPECT_FALSE(IsOwnInputMetadataKey("seeds"));
  EXPECT_FALSE(IsOwnInputMetadataKey("inputs.x"));
  EXPECT_FALSE(IsOwnInputMetadataKey("dataset_revision"));
}

}  // namespace
}  // namespace torchscan::spec
