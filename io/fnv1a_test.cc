#include "io/fnv1a.h"

#include <gtest/gtest.h>

#include <string>

namespace torchscan {
namespace {

// The published FNV-1a 64-bit test values.
TEST(Fnv1a64, PublishedValues) {
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ull);
}

TEST(Fnv1a64, EveryByteCountsNulsIncluded) {
  EXPECT_NE(Fnv1a64(std::string("a\0b", 3)), Fnv1a64(std::string("a\0c", 3)));
  EXPECT_NE(Fnv1a64(std::string("a\0b", 3)), Fnv1a64("ab"));
}

}  // namespace
}  // namespace torchscan
