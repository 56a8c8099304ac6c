#include "benchmarks/benchmark_args.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace torchscan::benchmarks {
namespace {

TEST(TakeQuickFlag, RemovesEveryQuickAndKeepsTheRestInOrder) {
  std::vector<std::string> words = {"prog", "--quick", "a", "--quick", "b"};
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  int argc = static_cast<int>(argv.size());
  EXPECT_TRUE(TakeQuickFlag(&argc, argv.data()));
  ASSERT_EQ(argc, 3);
  EXPECT_STREQ(argv[0], "prog");
  EXPECT_STREQ(argv[1], "a");
  EXPECT_STREQ(argv[2], "b");
  EXPECT_FALSE(TakeQuickFlag(&argc, argv.data()));
  EXPECT_EQ(argc, 3);
}

TEST(PositiveInt, AcceptsWholePositiveNumbersOnly) {
  EXPECT_EQ(PositiveInt("7"), 7);
  EXPECT_EQ(PositiveInt("2147483647"), 2147483647);
  for (const char* bad : {"", "0", "-1", "+3", "3x", " 3", "--bogus", "2147483648", "99999999999999999999"})
    EXPECT_EQ(PositiveInt(bad), std::nullopt) << bad;
  EXPECT_EQ(PositiveInt(nullptr), std::nullopt);
}

}  // namespace
}  // namespace torchscan::benchmarks
