// FinishedRecords keeps at most its capacity, drops the least recently used first, and a
// kept record keeps its address while it is kept.
#include "daemon/finished_records.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace torchscan::daemon {
namespace {

v1::Job Record(const std::string& id) {
  v1::Job job;
  job.set_id(id);
  job.set_state(v1::Job::succeeded);
  return job;
}

TEST(FinishedRecords, KeepsAtMostItsCapacityDroppingTheLeastRecentlyUsed) {
  FinishedRecords kept(2);
  kept.Keep(Record("job-000001"));
  kept.Keep(Record("job-000002"));
  ASSERT_NE(kept.Get("job-000001"), nullptr);  // now the most recently used
  kept.Keep(Record("job-000003"));
  EXPECT_EQ(kept.size(), 2u);
  EXPECT_NE(kept.Get("job-000001"), nullptr);
  EXPECT_EQ(kept.Get("job-000002"), nullptr) << "the least recently used goes first";
  EXPECT_NE(kept.Get("job-000003"), nullptr);
}

TEST(FinishedRecords, KeepingAnIdAgainReplacesItsRecord) {
  FinishedRecords kept(3);
  kept.Keep(Record("job-000001"));
  v1::Job changed = Record("job-000001");
  changed.set_error("newer");
  kept.Keep(changed);
  EXPECT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept.Get("job-000001")->error(), "newer");
}

TEST(FinishedRecords, ARecordMovedInKeepsItsAddress) {
  std::map<std::string, v1::Job> live;
  live.emplace("job-000001", Record("job-000001"));
  const v1::Job* before = &live.at("job-000001");
  FinishedRecords kept(1);
  EXPECT_EQ(kept.Keep(live.extract("job-000001")), before);
  EXPECT_EQ(kept.Get("job-000001"), before);
}

TEST(FinishedRecords, ACapacityOfZeroStillKeepsTheLastRecord) {
  FinishedRecords kept(0);
  const v1::Job* last = kept.Keep(Record("job-000001"));
  EXPECT_EQ(kept.Get("job-000001"), last);
  EXPECT_EQ(kept.capacity(), 1u);
}

}  // namespace
}  // namespace torchscan::daemon
