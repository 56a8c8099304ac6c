#include "daemon/job_queue.h"

#include <gtest/gtest.h>

namespace torchscan::daemon {
namespace {

TEST(JobQueue, PopsInSubmissionOrder) {
  JobQueue queue(10);
  ASSERT_TRUE(queue.Push("a").ok());
  ASSERT_TRUE(queue.Push("b").ok());
  ASSERT_TRUE(queue.Push("c").ok());
  EXPECT_EQ(queue.Pop(), "a");
  EXPECT_EQ(queue.Pop(), "b");
  EXPECT_EQ(queue.Pop(), "c");
  EXPECT_EQ(queue.Pop(), std::nullopt);
}

TEST(JobQueue, PositionsCountFromOne) {
  JobQueue queue(10);
  ASSERT_TRUE(queue.Push("a").ok());
  ASSERT_TRUE(queue.Push("b").ok());
  EXPECT_EQ(queue.Position("a"), 1);
  EXPECT_EQ(queue.Position("b"), 2);
  EXPECT_EQ(queue.Position("zz"), 0);
  queue.Pop();
  EXPECT_EQ(queue.Position("a"), 0);
  EXPECT_EQ(queue.Position("b"), 1);
}

TEST(JobQueue, RemoveCancelsAQueuedJob) {
  JobQueue queue(10);
  for (const char* id : {"a", "b", "c"}) ASSERT_TRUE(queue.Push(id).ok());
  EXPECT_TRUE(queue.Remove("b"));
  EXPECT_FALSE(queue.Remove("b"));
  EXPECT_EQ(queue.Position("c"), 2);
  EXPECT_EQ(queue.ids(), (std::vector<std::string>{"a", "c"}));
}

TEST(JobQueue, FullQueueIsRefusedNamingTheLimit) {
  JobQueue queue(2);
  ASSERT_TRUE(queue.Push("a").ok());
  ASSERT_TRUE(queue.Push("b").ok());
  absl::Status full = queue.Push("c");
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(full.message().find("max_queue_length 2"), std::string::npos) << full;
  queue.Pop();
  EXPECT_TRUE(queue.Push("c").ok());
}

TEST(JobQueue, RestoreIgnoresTheLimitButNotDuplicates) {
  JobQueue queue(1);
  queue.Restore("a");
  queue.Restore("b");
  queue.Restore("a");
  EXPECT_EQ(queue.size(), 2u);
  EXPECT_EQ(queue.Push("a").code(), absl::StatusCode::kAlreadyExists);
}

}  // namespace
}  // namespace torchscan::daemon
