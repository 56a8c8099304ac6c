#include "daemon/job_timeline.h"

#include <unistd.h>

#include <cmath>

#include <gtest/gtest.h>

namespace torchscan::daemon {
namespace {

v1::Job Ran(const std::string& started, const std::string& finished) {
  v1::Job job;
  job.set_started_at(started);
  job.set_finished_at(finished);
  return job;
}

TEST(JobTimeline, ParsesTheRecordedFormat) {
  EXPECT_DOUBLE_EQ(ParseRfc3339Seconds("1970-01-01T00:00:01.250Z"), 1.25);
  EXPECT_DOUBLE_EQ(ParseRfc3339Seconds("2024-05-01T12:34:56.999Z"), 1714566896.999);
  EXPECT_TRUE(std::isnan(ParseRfc3339Seconds("")));
  EXPECT_TRUE(std::isnan(ParseRfc3339Seconds("2024-05-01T12:34:56Z")));
  EXPECT_TRUE(std::isnan(ParseRfc3339Seconds("2024-05-01T12:34:56.999+01:00")));
}

TEST(JobTimeline, BackToBackJobsDoNotOverlap) {
  EXPECT_EQ(CountOverlappingExecutions({Ran("2024-05-01T00:00:01.000Z", "2024-05-01T00:00:02.000Z"),
                                        Ran("2024-05-01T00:00:02.000Z", "2024-05-01T00:00:03.000Z")}),
            0);
  EXPECT_EQ(CountOverlappingExecutions({}), 0);
}

TEST(JobTimeline, CountsEachJobStartedBeforeAnEarlierOneFinished) {
  // The third starts after the second finished but before the long first one did.
  EXPECT_EQ(CountOverlappingExecutions({Ran("2024-05-01T00:00:04.000Z", "2024-05-01T00:00:05.000Z"),
                                        Ran("2024-05-01T00:00:01.000Z", "2024-05-01T00:00:09.000Z"),
                                        Ran("2024-05-01T00:00:02.000Z", "2024-05-01T00:00:03.000Z")}),
            2);
}

TEST(JobTimeline, IgnoresJobsThatNeverRan) {
  EXPECT_EQ(CountOverlappingExecutions(
                {Ran("2024-05-01T00:00:01.000Z", "2024-05-01T00:00:09.000Z"), Ran("", "2024-05-01T00:00:02.000Z")}),
            0);
}

TEST(JobTimeline, ReadsThisProcessRss) {
  EXPECT_GT(VmRssMiB(::getpid()), 0);
  EXPECT_EQ(VmRssMiB(-1), -1);
}

}  // namespace
}  // namespace torchscan::daemon
