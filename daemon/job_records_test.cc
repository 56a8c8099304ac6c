// JobRecords' own behaviour: its locking rule is checked at run time (AssertHeld), and a
// stored job is found under the lock with its "queue wait" phase begun.
#include "daemon/job_records.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace torchscan::daemon {
namespace {

v1::DaemonConfig Config(const std::string& name) {
  v1::DaemonConfig config;
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::filesystem::remove_all(dir);
  config.set_state_dir(dir);
  return config;
}

// Deliberately without mu(): what the annotations forbid, AssertHeld catches at run time.
const v1::Job* FindUnlocked(JobRecords& records, const std::string& id) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  return records.Find(id);
}

TEST(JobRecordsDeathTest, ReadingTheRecordsWithoutTheLockAborts) {
  JobRecords records(Config("unlocked"));
  ASSERT_TRUE(records.Load([](const std::string&) {}).ok());
  EXPECT_DEATH(FindUnlocked(records, "job-000001"), "should hold");
}

TEST(JobRecords, AStoredJobIsFoundWithItsQueueWaitBegun) {
  JobRecords records(Config("stored"));
  ASSERT_TRUE(records.Load([](const std::string&) {}).ok());
  absl::MutexLock lock(&records.mu());
  v1::Job job;
  job.set_id(records.NextId());
  job.set_state(v1::Job::queued);
  job.set_submitted_at("2026-01-01T00:00:00.000Z");
  EXPECT_EQ(job.id(), "job-000001");
  ASSERT_TRUE(records.StoreNew(job, v1::JobSpec()).ok());
  EXPECT_EQ(records.NextId(), "job-000002");
  const v1::Job* found = records.Find("job-000001");
  ASSERT_NE(found, nullptr);
  ASSERT_EQ(found->timeline().spans_size(), 1);
  EXPECT_EQ(found->timeline().spans(0).phase(), "queue wait");
  EXPECT_TRUE(records.store().HasSpec("job-000001"));
}

}  // namespace
}  // namespace torchscan::daemon
