#include "worker/worker_protocol.h"

#include <gtest/gtest.h>

namespace torchscan::worker {
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

TEST(WorkerProtocol, ReadyLine) {
  std::optional<WorkerLine> line = ParseWorkerLine(kReadyLine);
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->kind, WorkerLine::Kind::kReady);
}

TEST(WorkerProtocol, HandoffRoundTrips) {
  const std::string text = FormatHandoff({"/state/jobs/job-000002", "/state/jobs/job-000002/worker.stderr"});
  EXPECT_EQ(text, "job /state/jobs/job-000002\nstderr /state/jobs/job-000002/worker.stderr\n");
  std::optional<Handoff> handoff = ParseHandoff(text);
  ASSERT_TRUE(handoff.has_value());
  EXPECT_EQ(handoff->job_dir, "/state/jobs/job-000002");
  EXPECT_EQ(handoff->stderr_path, "/state/jobs/job-000002/worker.stderr");
  EXPECT_EQ(ParseHandoff("job /a b\nstderr /c d\n")->job_dir, "/a b");  // spaces stay
}

TEST(WorkerProtocol, MalformedHandoffsAreRefused) {
  for (const char* text : {"", "job /a\n", "job /a\nstderr /b", "job /a\nstderr /b\nmore\n", "job \nstderr /b\n",
                           "job /a\nstderr \n", "stderr /b\njob /a\n", "jobs /a\nstderr /b\n"}) {
    EXPECT_FALSE(ParseHandoff(text).has_value()) << text;
  }
}

TEST(WorkerProtocol, OtherLinesAreIgnored) {
  for (const char* text : {"", "hello", "blocks", "blocks -1", "blocks 1x", "blocks 99999999999999999999", "phase ",
                           "phase   ", "Phase x", "done please"}) {
    EXPECT_FALSE(ParseWorkerLine(text).has_value()) << text;
  }
}

TEST(WorkerProtocol, RssWaitingFdsRoundTrip) {
  EXPECT_EQ(FormatRssWaitingFds({57, 58}), "57:58");
  const std::optional<RssWaitingFds> fds = ParseRssWaitingFds("57:58");
  ASSERT_TRUE(fds.has_value());
  EXPECT_EQ(fds->socket_fd, 57);
  EXPECT_EQ(fds->stderr_fd, 58);
  for (const char* text : {"", "57", "57:", ":58", "57:58:59", "-1:3", "a:b"})
    EXPECT_FALSE(ParseRssWaitingFds(text).has_value()) << text;
}

TEST(WorkerProtocol, EarlyChildrenAreOnePerRssTrial) {
  v1::JobSpec spec;
  spec.mutable_measure();
  EXPECT_EQ(EarlyChildCount(spec), 0);  // no rss
  spec.mutable_options()->set_rss(true);
  EXPECT_EQ(EarlyChildCount(spec), 1);
  spec.mutable_compare();
  EXPECT_EQ(EarlyChildCount(spec), 2);
  EXPECT_EQ(EarlyChildrenOf(spec, {"/opt/torchscan_rss_child"}).children.size(), 2u);
  EXPECT_EQ(EarlyChildrenOf(spec, {"/opt/torchscan_rss_child"}).children[0].path, "/opt/torchscan_rss_child");
  EXPECT_TRUE(EarlyChildrenOf(spec, {""}).children.empty());  // no RSS child configured
}

TEST(WorkerProtocol, HelperAndSpareArguments) {
  EXPECT_EQ(HelperProgramArgs({"/opt/c"}), (std::vector<std::string>{"--rss-child", "/opt/c"}));
  EXPECT_TRUE(HelperProgramArgs({""}).empty());
  EXPECT_EQ(SpareArgs(2), (std::vector<std::string>{"--rss-children", "2"}));
  EXPECT_EQ(SpareArgs(-1), (std::vector<std::string>{"--rss-children", "0"}));
}

TEST(WorkerProtocol, PhasesOnTheTimeline) {
  EXPECT_EQ(ClassifyPhase("rss baseline"), PhaseKind::kConcurrent);
  EXPECT_EQ(ClassifyPhase("wait for rss"), PhaseKind::kJoin);
  EXPECT_EQ(ClassifyPhase("warm-up candidate"), PhaseKind::kTimed);
  EXPECT_EQ(ClassifyPhase("timing baseline"), PhaseKind::kTimed);
  EXPECT_EQ(ClassifyPhase("build baseline"), PhaseKind::kOwn);
  EXPECT_EQ(ClassifyPhase("rssx"), PhaseKind::kOwn);
  EXPECT_EQ(EarlyChildrenSpan(2), "rss children (2 started with the worker)");
}

TEST(WorkerProtocol, ExitCodesHaveNames) {
  EXPECT_EQ(DescribeWorkerExit(kWorkerBadSpec), "bad spec");
  EXPECT_EQ(DescribeWorkerExit(kWorkerWorkloadError), "workload error");
  EXPECT_EQ(DescribeWorkerExit(kWorkerOutOfMemory), "out of memory");
  EXPECT_EQ(DescribeWorkerExit(77), "unknown exit code");
}

}  // namespace
}  // namespace torchscan::worker
