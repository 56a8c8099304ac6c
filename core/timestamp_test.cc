#include "core/timestamp.h"

#include <gtest/gtest.h>

namespace torchscan {
namespace {

TEST(FormatRfc3339Utc, MillisecondsInUtc) {
  using std::chrono::system_clock;
  EXPECT_EQ(FormatRfc3339Utc(system_clock::from_time_t(0)), "1970-01-01T00:00:00.000Z");
  const auto t = system_clock::from_time_t(1714566896) + std::chrono::milliseconds(999);
  EXPECT_EQ(FormatRfc3339Utc(t), "2024-05-01T12:34:56.999Z");
  EXPECT_EQ(FormatRfc3339Utc(system_clock::from_time_t(0) - std::chrono::milliseconds(1)), "1969-12-31T23:59:59.999Z");
}

TEST(NowRfc3339, IsTodayInTheFormat) {
  const std::string now = NowRfc3339();
  ASSERT_EQ(now.size(), 24u) << now;
  EXPECT_EQ(now[10], 'T');
  EXPECT_EQ(now.substr(19, 1), ".");
  EXPECT_EQ(now.back(), 'Z');
}

}  // namespace
}  // namespace torchscan
