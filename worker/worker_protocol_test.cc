#include "worker/worker_protocol.h"

#include <gtest/gtest.h>

namespace torchscan::daemon {
namespace {

TEST(WorkerProtocol, PhaseRoundTrips) {
  std::optional<WorkerLine> line = ParseWorkerLine(FormatPhaseLine("timing baseline"));
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->kind, WorkerLine::Kind::kPhase);
  EXPECT_EQ(line->phase, "timing baseline");
}

TEST(WorkerProtocol, PhaseTextLosesNewlines) { EXPECT_EQ(FormatPhaseLine("a\nb\r"), "phase a b "); }

TEST(WorkerProtocol, BlocksRoundTrip) {
  std::optional<WorkerLine> line = ParseWorkerLine(FormatBlocksLine(42));
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->kind, WorkerLine::Kind::kBlocks);
  EXPECT_EQ(line->blocks, 42);
}

TEST(WorkerProtocol, DoneAndCarriageReturn) {
  std::optional<WorkerLine> line = ParseWorkerLine("done\r");
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->kind, WorkerLine::Kind::kDone);
}

TEST(WorkerProtocol, OtherLinesAreIgnored) {
  for (const char* text : {"", "hello", "blocks", "blocks -1", "blocks 1x", "blocks 99999999999999999999", "phase ",
                           "phase   ", "Phase x", "done please"}) {
    EXPECT_FALSE(ParseWorkerLine(text).has_value()) << text;
  }
}

TEST(WorkerProtocol, ExitCodesHaveNames) {
  EXPECT_EQ(DescribeWorkerExit(kWorkerBadSpec), "bad spec");
  EXPECT_EQ(DescribeWorkerExit(kWorkerWorkloadError), "workload error");
  EXPECT_EQ(DescribeWorkerExit(kWorkerOutOfMemory), "out of memory");
  EXPECT_EQ(DescribeWorkerExit(77), "unknown exit code");
}

}  // namespace
}  // namespace torchscan::daemon
