#include "daemon/job_queue.h"

#include <gtest/gtest.h>

namespace torchscan::daemon {
namespace {

TEST(JobQueue, PopsInSubmissionOrder) {
  JobQueue queue(10, 10);
  ASSERT_TRUE(queue.Push("a", "u").ok());
  ASSERT_TRUE(queue.Push("b", "u").ok());
  ASSERT_TRUE(queue.Push("c", "u").ok());
  EXPECT_EQ(queue.Pop(), "a");
  EXPECT_EQ(queue.Pop(), "b");
  EXPECT_EQ(queue.Pop(), "c");
  EXPECT_EQ(queue.Pop(), std::nullopt);
}

TEST(JobQueue, PositionsCountFromOne) {
  JobQueue queue(10, 10);
  ASSERT_TRUE(queue.Push("a", "u").ok());
  ASSERT_TRUE(queue.Push("b", "u").ok());
  EXPECT_EQ(queue.Position("a"), 1);
  EXPECT_EQ(queue.Position("b"), 2);
  EXPECT_EQ(queue.Position("zz"), 0);
  queue.Pop();
  EXPECT_EQ(queue.Position("a"), 0);
  EXPECT_EQ(queue.Position("b"), 1);
}

TEST(JobQueue, RemoveCancelsAQueuedJob) {
  JobQueue queue(10, 10);
  for (const char* id : {"a", "b", "c"}) ASSERT_TRUE(queue.Push(id, "u").ok());
  EXPECT_TRUE(queue.Remove("b"));
  EXPECT_FALSE(queue.Remove("b"));
  EXPECT_EQ(queue.Position("c"), 2);
  EXPECT_EQ(queue.ids(), (std::vector<std::string>{"a", "c"}));
}

TEST(JobQueue, TakeRunsAJobOutOfTurnAndMarksItsUserServed) {
  JobQueue queue(10, 10);
  ASSERT_TRUE(queue.Push("a1", "alice").ok());
  ASSERT_TRUE(queue.Push("b1", "bob").ok());
  ASSERT_TRUE(queue.Push("b2", "bob").ok());
  EXPECT_TRUE(queue.Take("b1"));
  EXPECT_FALSE(queue.Take("b1"));
  EXPECT_EQ(queue.ids(), (std::vector<std::string>{"a1", "b2"}));
  ASSERT_TRUE(queue.Push("c1", "carol").ok());
  EXPECT_EQ(queue.Pop(), "a1");  // never served, waits longest
  EXPECT_EQ(queue.Pop(), "c1");  // never served
  EXPECT_EQ(queue.Pop(), "b2");  // bob was served by the Take
}

TEST(JobQueue, FullQueueIsRefusedNamingTheLimit) {
  JobQueue queue(2, 2);
  ASSERT_TRUE(queue.Push("a", "u").ok());
  ASSERT_TRUE(queue.Push("b", "u").ok());
  absl::Status full = queue.Push("c", "u");
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(full.message().find("max_queue_length 2"), std::string::npos) << full;
  queue.Pop();
  EXPECT_TRUE(queue.Push("c", "u").ok());
}

TEST(JobQueue, RestoreIgnoresTheLimitButNotDuplicates) {
  JobQueue queue(1, 1);
  queue.Restore("a", "u");
  queue.Restore("b", "u");
  queue.Restore("a", "u");
  EXPECT_EQ(queue.size(), 2u);
  EXPECT_EQ(queue.Push("a", "u").code(), absl::StatusCode::kAlreadyExists);
}

}  // namespace
TEST(JobQueue, UsersTakeTurnsServedLongestAgoFirst) {
  JobQueue queue(100, 100);
  for (const char* id : {"a1", "a2", "a3", "a4"}) ASSERT_TRUE(queue.Push(id, "alice").ok());
  EXPECT_EQ(queue.Pop(), "a1");  // alice's burst began: a1 runs
  ASSERT_TRUE(queue.Push("b1", "bob").ok());
  ASSERT_TRUE(queue.Push("b2", "bob").ok());
  ASSERT_TRUE(queue.Push("c1", "carol").ok());
  // bob and carol were never served: they go before alice's next job, bob's waited longer.
  EXPECT_EQ(queue.ids(), (std::vector<std::string>{"b1", "c1", "a2", "b2", "a3", "a4"}));
  EXPECT_EQ(queue.Position("b1"), 1);
  EXPECT_EQ(queue.Position("a2"), 3);
  EXPECT_EQ(queue.Position("a4"), 6);
  for (const char* id : {"b1", "c1", "a2", "b2", "a3", "a4"}) EXPECT_EQ(queue.Pop(), id);
  EXPECT_EQ(queue.Pop(), std::nullopt);
  EXPECT_TRUE(queue.empty());
}

TEST(JobQueue, AUsersShareIsCappedNamingTheCapWhileOthersStillGetIn) {
  JobQueue queue(100, 2);
  ASSERT_TRUE(queue.Push("a1", "alice").ok());
  ASSERT_TRUE(queue.Push("a2", "alice").ok());
  const absl::Status capped = queue.Push("a3", "alice");
  EXPECT_EQ(capped.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(capped.message().find("alice has 2 jobs queued"), std::string::npos) << capped;
  EXPECT_NE(capped.message().find("max_queued_per_user 2"), std::string::npos) << capped;
  EXPECT_TRUE(queue.Push("b1", "bob").ok());
  EXPECT_TRUE(queue.Remove("a1"));
  EXPECT_TRUE(queue.Push("a3", "alice").ok());  // room again once one left the queue
  EXPECT_EQ(queue.size(), 3u);
}

TEST(JobQueue, RestoredJobsKeepTheirUsersTurns) {
  JobQueue queue(1, 1);
  queue.Restore("a1", "alice");
  queue.Restore("a2", "alice");
  queue.Restore("b1", "bob");
  EXPECT_EQ(queue.ids(), (std::vector<std::string>{"a1", "b1", "a2"}));
}

}  // namespace torchscan::daemon
