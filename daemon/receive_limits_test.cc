#include "daemon/receive_limits.h"

#include <climits>

#include <gtest/gtest.h>

namespace torchscan::daemon {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

TEST(ReceiveLimits, SmallUploadLimitsStillReceive256MiBSoThatTheirRefusalNamesTheLimit) {
  EXPECT_EQ(GrpcReceiveLimit(8 * kMiB), 256 * kMiB);    // the hostile input test's daemon
  EXPECT_EQ(GrpcReceiveLimit(64 * kMiB), 256 * kMiB);   // the default
  EXPECT_EQ(GrpcReceiveLimit(180 * kMiB), 256 * kMiB);  // a private daemon's
  EXPECT_EQ(GrpcReceiveLimit(255 * kMiB), 256 * kMiB);
  EXPECT_EQ(GrpcMemoryQuota(64 * kMiB), 512 * kMiB);
}

TEST(ReceiveLimits, LargeUploadLimitsReceiveTheLargestSpecAndItsFraming) {
  EXPECT_EQ(GrpcReceiveLimit(1024 * kMiB), 1025 * kMiB);
  EXPECT_EQ(GrpcMemoryQuota(1024 * kMiB), 2050 * kMiB);
}

TEST(ReceiveLimits, GrpcsIntIsTheCeiling) {
  EXPECT_EQ(GrpcReceiveLimit(int64_t{3} << 30), INT_MAX);
  EXPECT_EQ(GrpcReceiveLimit(int64_t{1} << 62), INT_MAX);  // no overflow on the way
  EXPECT_EQ(GrpcReceiveLimit(0), INT_MAX);                 // no upload limit
  EXPECT_EQ(GrpcReceiveLimit(-1), INT_MAX);
  EXPECT_EQ(GrpcMemoryQuota(int64_t{1} << 62), int64_t{2} * INT_MAX);
}

}  // namespace
}  // namespace torchscan::daemon
