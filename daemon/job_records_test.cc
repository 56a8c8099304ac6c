// JobRecords' own behaviour: its locking rule is checked at run time (AssertHeld), a stored
// job is found under the lock with its "queue wait" phase begun, and memory holds a bounded
// number of finished records, the others read again from disk.
#include "daemon/job_records.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"

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
  ASSERT_TRUE(records.Load([](const v1::Job&) {}).ok());
  EXPECT_DEATH(FindUnlocked(records, "job-000001"), "should hold");
}

TEST(JobRecords, AStoredJobIsFoundWithItsQueueWaitBegun) {
  JobRecords records(Config("stored"));
  ASSERT_TRUE(records.Load([](const v1::Job&) {}).ok());
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

// Stores job number `n` and finishes it (as the executor does), returning its id.
std::string RunToEnd(JobRecords& records, int n) ABSL_EXCLUSIVE_LOCKS_REQUIRED(records.mu()) {
  v1::Job job;
  job.set_id(records.NextId());
  job.set_state(v1::Job::queued);
  job.set_submitted_at("2026-01-01T00:00:00.000Z");
  job.mutable_spec()->set_label(n % 2 == 0 ? "even" : "odd");
  EXPECT_TRUE(records.StoreNew(job, v1::JobSpec()).ok());
  v1::Job& live = *records.Find(job.id());
  live.set_state(v1::Job::succeeded);
  live.set_error(absl::StrCat("record ", n));
  records.EndPhases(live);
  records.Changed(live, true);
  EXPECT_EQ(live.error(), absl::StrCat("record ", n)) << "the record passed to Changed stays where it was";
  return job.id();
}

TEST(JobRecords, MemoryKeepsABoundedNumberOfFinishedRecordsAndReadsTheOthersAgain) {
  const v1::DaemonConfig config = Config("bounded");
  const int jobs = static_cast<int>(kKeptFinishedRecords) + 20;
  {
    JobRecords records(config);
    ASSERT_TRUE(records.Load([](const v1::Job&) {}).ok());
    absl::MutexLock lock(&records.mu());
    for (int n = 1; n <= jobs; ++n) RunToEnd(records, n);
    EXPECT_EQ(records.kept_finished(), kKeptFinishedRecords);
    EXPECT_EQ(records.states().size(), static_cast<size_t>(jobs)) << "every job's state stays known";
    // The oldest was dropped from memory and is read again, whole, from its job.json.
    const v1::Job* oldest = records.Find("job-000001");
    ASSERT_NE(oldest, nullptr);
    EXPECT_EQ(oldest->error(), "record 1");
    EXPECT_EQ(oldest->state(), v1::Job::succeeded);
    EXPECT_EQ(oldest->timeline().spans(0).phase(), "queue wait");
    EXPECT_EQ(records.kept_finished(), kKeptFinishedRecords);
    EXPECT_EQ(records.Find("job-999999"), nullptr);
    records.Flush();
  }
  // A restart keeps the newest in memory and knows every job.
  JobRecords again(config);
  ASSERT_TRUE(again.Load([](const v1::Job&) {}).ok());
  absl::MutexLock lock(&again.mu());
  EXPECT_EQ(again.kept_finished(), kKeptFinishedRecords);
  EXPECT_EQ(again.states().size(), static_cast<size_t>(jobs));
  ASSERT_NE(again.Find("job-000002"), nullptr);
  EXPECT_EQ(again.Find("job-000002")->error(), "record 2");
}

TEST(JobRecords, ARecordGoneFromDiskIsNotFoundAndSaysSo) {
  const v1::DaemonConfig config = Config("gone");
  JobRecords records(config);
  ASSERT_TRUE(records.Load([](const v1::Job&) {}).ok());
  absl::MutexLock lock(&records.mu());
  for (int n = 1; n <= static_cast<int>(kKeptFinishedRecords) + 1; ++n) RunToEnd(records, n);
  std::filesystem::remove(config.state_dir() + "/jobs/job-000001/job.json");
  EXPECT_EQ(records.Find("job-000001"), nullptr);
  EXPECT_EQ(records.states().count("job-000001"), 1u);
}

}  // namespace
}  // namespace torchscan::daemon

namespace torchscan::daemon {
namespace {

// A stored job that CompleteResult can find (node "": this machine).
std::string Stored(JobRecords& records) ABSL_EXCLUSIVE_LOCKS_REQUIRED(records.mu()) {
  v1::Job job;
  job.set_id(records.NextId());
  job.set_state(v1::Job::running);
  job.set_submitted_at("2026-01-01T00:00:00.000Z");
  EXPECT_TRUE(records.StoreNew(job, v1::JobSpec()).ok());
  return job.id();
}

// A GPU's calibration is its own noise floor: it does not replace the CPU's, a compare on that
// GPU gets it and a CPU compare gets the CPU's; both come back after a restart.
TEST(JobRecords, EachDeviceKeepsItsOwnNoiseFloor) {
  const v1::DaemonConfig config = Config("device_floors");
  {
    JobRecords records(config);
    ASSERT_TRUE(records.Load([](const v1::Job&) {}).ok());
    absl::MutexLock lock(&records.mu());
    for (const char* device : {"cpu", "cuda:1"}) {
      v1::JobResult calibration;
      v1::NoiseFloor* floor = calibration.mutable_calibration()->mutable_noise_floor();
      floor->set_measured_at("2026-12-01T10:00:00.000Z");
      floor->set_device(device);
      floor->set_pairs(device == std::string("cpu") ? 20 : 8);
      records.CompleteResult(Stored(records), v1::Timeline(), &calibration);
    }
    ASSERT_TRUE(records.noise_floor().has_value());
    EXPECT_EQ(records.noise_floor()->pairs(), 20);
    ASSERT_TRUE(records.noise_floor("", "cuda:1").has_value());
    EXPECT_EQ(records.noise_floor("", "cuda:1")->pairs(), 8);
    EXPECT_FALSE(records.noise_floor("", "cuda:0").has_value());
    for (const char* device : {"cpu", "cuda:1"}) {
      v1::JobResult compare;
      compare.mutable_comparison()->mutable_before()->mutable_settings()->set_device(device);
      records.CompleteResult(Stored(records), v1::Timeline(), &compare);
      EXPECT_EQ(compare.comparison().noise_floor().pairs(), device == std::string("cpu") ? 20 : 8) << device;
    }
  }
  JobRecords again(config);
  ASSERT_TRUE(again.Load([](const v1::Job&) {}).ok());
  absl::MutexLock lock(&again.mu());
  ASSERT_EQ(again.gpu_noise_floors().size(), 1u);
  EXPECT_EQ(again.gpu_noise_floors()[0].device(), "cuda:1");
  EXPECT_EQ(again.noise_floor()->pairs(), 20);
}

}  // namespace
}  // namespace torchscan::daemon
