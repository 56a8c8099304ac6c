#include "daemon/node_outcome.h"

#include <gtest/gtest.h>

namespace torchscan::daemon {
namespace {

TEST(NodeOutcomeTest, RoundTripsEachEnd) {
  JobRunOutcome ok;
  ok.state = v1::Job::succeeded;
  std::optional<NodeOutcome> parsed = ParseNodeOutcome(FormatNodeOutcome(ok, "node1"));
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->outcome.state, v1::Job::succeeded);
  EXPECT_EQ(parsed->host, "node1");
  EXPECT_EQ(parsed->outcome.error, "");

  JobRunOutcome failed;
  failed.error = "workload error:\nline two";
  parsed = ParseNodeOutcome(FormatNodeOutcome(failed, "n2"));
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->outcome.state, v1::Job::failed);
  EXPECT_FALSE(parsed->outcome.killed);
  EXPECT_EQ(parsed->outcome.error, "workload error:\nline two");

  JobRunOutcome killed;
  killed.killed = true;
  killed.error = "Slurm stopped the job";
  parsed = ParseNodeOutcome(FormatNodeOutcome(killed, "n3"));
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(parsed->outcome.killed);
  EXPECT_NE(parsed->outcome.state, v1::Job::succeeded);
}

TEST(NodeOutcomeTest, RefusesForeignText) {
  EXPECT_FALSE(ParseNodeOutcome(""));
  EXPECT_FALSE(ParseNodeOutcome("succeeded"));
  EXPECT_FALSE(ParseNodeOutcome("maybe\nhost\n"));
}

}  // namespace
}  // namespace torchscan::daemon
