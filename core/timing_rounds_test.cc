#include "core/timing_rounds.h"

#include <gtest/gtest.h>

namespace torchscan {
namespace {

v1::Timing Blocks(std::initializer_list<double> per_call) {
  v1::Timing t;
  for (double d : per_call) {
    v1::TimingBlock* b = t.add_blocks();
    b->set_calls(2);
    b->set_duration_s(2 * d);
  }
  return t;
}

TEST(AddTimingRound, RecordsEachRoundsBlocksPositionAndOwnMedian) {
  v1::Timing t = Blocks({1, 2, 3, 5, 6, 7, 8});
  AddTimingRound(1, "first", 0, 3, 1, &t);
  AddTimingRound(2, "second", 3, 4, 2, &t);
  ASSERT_EQ(t.rounds_size(), 2);
  EXPECT_EQ(t.rounds(0).round(), 1);
  EXPECT_EQ(t.rounds(0).position(), "first");
  EXPECT_EQ(t.rounds(0).first_block(), 0);
  EXPECT_EQ(t.rounds(0).block_count(), 3);
  EXPECT_DOUBLE_EQ(t.rounds(0).median_s(), 2);
  EXPECT_EQ(t.rounds(1).position(), "second");
  EXPECT_EQ(t.rounds(1).first_block(), 3);
  EXPECT_EQ(t.rounds(1).block_count(), 4);
  EXPECT_DOUBLE_EQ(t.rounds(1).median_s(), 6.5);
  EXPECT_EQ(t.rounds(0).unit(), 1);
  EXPECT_EQ(t.rounds(1).unit(), 2);
  EXPECT_EQ(t.blocks_size(), 7) << "the blocks stay as they were";
  const std::vector<v1::TimingBlock> blocks(t.blocks().begin(), t.blocks().end());
  EXPECT_DOUBLE_EQ(RoundMedian(blocks, 3, 4), 6.5) << "as the round records it";
  EXPECT_DOUBLE_EQ(RoundMedian(blocks, 6, 9), 8) << "clamped";
  EXPECT_DOUBLE_EQ(RoundMedian(blocks, 9, 1), 0);
}

TEST(AddTimingRound, ARangeBeyondTheBlocksIsClamped) {
  v1::Timing t = Blocks({1, 2});
  AddTimingRound(1, "first", 1, 5, 1, &t);
  AddTimingRound(2, "first", 9, 1, 1, &t);
  EXPECT_EQ(t.rounds(0).block_count(), 1);
  EXPECT_DOUBLE_EQ(t.rounds(0).median_s(), 2);
  EXPECT_EQ(t.rounds(1).first_block(), 2);
  EXPECT_EQ(t.rounds(1).block_count(), 0);
  EXPECT_DOUBLE_EQ(t.rounds(1).median_s(), 0);
}

}  // namespace
}  // namespace torchscan
