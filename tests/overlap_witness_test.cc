// The overlap witness can fail: made-up logs for each of its rules, then real processes
// standing in for workers (a shell with `--job STATE/jobs/ID` in its command line, in a
// process group of its own, with a `sleep` child) run at once, one after the other, and with
// a child that outlives its "worker".
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "core/timestamp.h"
#include "tests/e2e_support.h"
#include "tests/job_process_witness.h"
#include "tests/overlap_verdict.h"

namespace torchscan::e2e {
namespace {

using std::chrono::system_clock;

constexpr double kGrace = 0.005;
constexpr double kT0 = 1.8e9;  // some moment (seconds since the epoch)

// `seconds` as the daemon writes a time (to the nearest millisecond here: 0.05 is not exact
// in binary).
std::string At(double seconds) {
  return FormatRfc3339Utc(
      system_clock::time_point(std::chrono::round<std::chrono::milliseconds>(std::chrono::duration<double>(seconds))));
}

v1::Job Record(const std::string& id, double started_s, double finished_s) {
  v1::Job job;
  job.set_id(id);
  job.set_started_at(At(started_s));
  job.set_finished_at(At(finished_s));
  return job;
}

// A process of `job` seen in scans first..last, one scan every 10 ms from kT0.
void See(WitnessLog* log, pid_t pid, const std::string& job, const std::string& program, double started_s, int first,
         int last) {
  for (int scan = first; scan <= last; ++scan)
    log->sightings.push_back({scan, kT0 + scan * 0.01, pid, job, program, started_s});
  log->scans = std::max(log->scans, last + 1);
}

bool AnyNames(const std::vector<std::string>& sentences, const std::string& a, const std::string& b) {
  return std::any_of(sentences.begin(), sentences.end(), [&](const std::string& s) {
    return s.find(a) != std::string::npos && s.find(b) != std::string::npos;
  });
}

TEST(OverlapVerdict, JobsOneAfterTheOtherPass) {
  WitnessLog log;
  See(&log, 100, "A", "torchscan-worker", kT0, 0, 10);
  See(&log, 101, "A", "torchscan_rss_child", kT0 + 0.05, 5, 8);
  See(&log, 102, "B", "torchscan-worker", kT0 + 0.12, 12, 20);
  const OverlapVerdict v =
      JudgeOverlaps(log, {Record("A", kT0, kT0 + 0.105), Record("B", kT0 + 0.11, kT0 + 0.21)}, kGrace);
  EXPECT_TRUE(v.ok()) << v.Summary();
  EXPECT_EQ(v.scans, 21);
  EXPECT_EQ(v.processes, 3);
  EXPECT_EQ(v.jobs, 2);
  EXPECT_EQ(v.ran("torchscan-worker"), 2);
  EXPECT_EQ(v.ran("torchscan_rss_child"), 1);
  EXPECT_EQ(v.Summary(),
            "21 scans, 3 processes (torchscan-worker x2, torchscan_rss_child x1) of 2 jobs; 0 overlaps, 0 outside "
            "their job's run, 0 of unknown jobs");
}

TEST(OverlapVerdict, OneScanWithTwoJobsIsAnOverlap) {
  WitnessLog log;
  See(&log, 100, "A", "torchscan-worker", kT0, 0, 10);
  See(&log, 200, "B", "torchscan-worker", kT0 + 0.1, 10, 20);  // scan 10 sees both
  const OverlapVerdict v = JudgeOverlaps(log, {Record("A", kT0, kT0 + 0.2), Record("B", kT0, kT0 + 0.2)}, kGrace);
  ASSERT_EQ(v.overlaps.size(), 1u) << v.Summary();
  EXPECT_NE(
      v.overlaps[0].find("scan 10 saw pid 100 (torchscan-worker) of job A and pid 200 (torchscan-worker) of job B"),
      std::string::npos)
      << v.overlaps[0];
  EXPECT_FALSE(v.ok());
}

TEST(OverlapVerdict, StartTimesCatchAnOverlapBetweenScans) {
  WitnessLog log;
  See(&log, 100, "A", "torchscan-worker", kT0, 0, 10);             // last seen at +100 ms
  See(&log, 200, "B", "torchscan_rss_child", kT0 + 0.05, 12, 14);  // started at +50 ms, first seen at +120 ms
  const OverlapVerdict v = JudgeOverlaps(log, {Record("A", kT0, kT0 + 0.2), Record("B", kT0, kT0 + 0.2)}, kGrace);
  ASSERT_EQ(v.overlaps.size(), 1u) << v.Summary();
  EXPECT_TRUE(AnyNames(v.overlaps, "pid 100 (torchscan-worker) of job A", "pid 200 (torchscan_rss_child) of job B"))
      << v.overlaps[0];
  EXPECT_NE(v.overlaps[0].find("at least 40.0 ms"), std::string::npos)
      << v.overlaps[0];  // +60 ms (start + tick) to +100 ms
}

TEST(OverlapVerdict, AStartWithinOneTickOfTheLastSightingIsNoOverlap) {
  WitnessLog log;
  See(&log, 100, "A", "torchscan-worker", kT0, 0, 10);
  See(&log, 200, "B", "torchscan-worker", kT0 + 0.095, 12, 14);  // its tick began before A was last seen
  const OverlapVerdict v =
      JudgeOverlaps(log, {Record("A", kT0, kT0 + 0.105), Record("B", kT0 + 0.105, kT0 + 0.2)}, kGrace);
  EXPECT_TRUE(v.ok()) << v.Summary();
}

TEST(OverlapVerdict, AChildSeenAfterItsJobFinishedIsReported) {
  WitnessLog log;
  See(&log, 100, "A", "torchscan-worker", kT0, 0, 10);
  See(&log, 101, "A", "torchscan_rss_child", kT0 + 0.05, 5, 30);  // 200 ms past A's finish
  See(&log, 102, "A", "torchscan_rss_child", kT0 + 0.05, 5, 10);  // 5 ms past it: within the grace
  const OverlapVerdict v = JudgeOverlaps(log, {Record("A", kT0, kT0 + 0.1)}, kGrace);
  ASSERT_EQ(v.outside_run.size(), 1u) << v.Summary();
  EXPECT_EQ(v.outside_run[0],
            "pid 101 (torchscan_rss_child) of job A was alive 200.0 ms after its job finished (finished_at " +
                At(kT0 + 0.1) + ")");
  EXPECT_TRUE(v.overlaps.empty());
}

TEST(OverlapVerdict, AProcessStartedBeforeItsJobIsReported) {
  WitnessLog log;
  See(&log, 100, "A", "torchscan-worker", kT0, 0, 10);
  const OverlapVerdict v = JudgeOverlaps(log, {Record("A", kT0 + 0.05, kT0 + 0.2)}, kGrace);
  ASSERT_EQ(v.outside_run.size(), 1u) << v.Summary();
  EXPECT_NE(v.outside_run[0].find("started 40.0 ms before its job did"), std::string::npos) << v.outside_run[0];
}

TEST(OverlapVerdict, AProcessOfAJobWithoutARecordIsReported) {
  WitnessLog log;
  See(&log, 100, "A", "torchscan-worker", kT0, 0, 10);
  const OverlapVerdict v = JudgeOverlaps(log, {}, kGrace);
  ASSERT_EQ(v.unknown_jobs.size(), 1u);
  EXPECT_EQ(v.unknown_jobs[0], "pid 100 (torchscan-worker) of job A: no job A in the daemon's records");
}

// Real processes: the test itself stands in for the daemon.
class FakeWorker {
 public:
  // `sh -c SCRIPT sh --job /state/jobs/JOB` in a session (and process group) of its own.
  FakeWorker(const std::string& job, const std::string& script)
      : process_("/usr/bin/setsid", {"/bin/sh", "-c", script, "sh", "--job", "/state/jobs/" + job}) {}
  CommandResult Wait() { return process_.Wait(30); }

 private:
  Background process_;
};

std::string Now() { return NowRfc3339(); }

TEST(JobProcessWitness, RealWorkersRunningAtOnceAreCaught) {
  JobProcessWitness witness(::getpid());
  const std::string started = Now();
  FakeWorker a("A", "sleep 0.5; true");
  FakeWorker b("B", "sleep 0.5; true");
  EXPECT_EQ(a.Wait().exit_code, 0);
  EXPECT_EQ(b.Wait().exit_code, 0);
  v1::Job ra, rb;
  ra.set_id("A");
  rb.set_id("B");
  for (v1::Job* r : {&ra, &rb}) {
    r->set_started_at(started);
    r->set_finished_at(Now());
  }
  const OverlapVerdict v = JudgeOverlaps(witness.Stop(), {ra, rb}, kGrace);
  std::printf("at once: %s\n", v.Summary().c_str());
  EXPECT_EQ(v.processes, 4);  // two shells and their sleeps
  EXPECT_EQ(v.ran("sleep"), 2);
  ASSERT_EQ(v.overlaps.size(), 1u);
  EXPECT_TRUE(AnyNames(v.overlaps, "of job A", "of job B")) << v.overlaps[0];
  EXPECT_TRUE(v.outside_run.empty()) << v.Summary();
}

TEST(JobProcessWitness, RealWorkersOneAfterTheOtherPass) {
  JobProcessWitness witness(::getpid());
  Background unrelated("/bin/sleep", {"0.8"});  // the test's child without --job: not a job process
  std::vector<v1::Job> records;
  for (const std::string job : {"A", "B"}) {
    v1::Job r;
    r.set_id(job);
    r.set_started_at(Now());
    FakeWorker worker(job, "sleep 0.3; true");
    EXPECT_EQ(worker.Wait().exit_code, 0);
    r.set_finished_at(Now());
    records.push_back(r);
  }
  EXPECT_EQ(unrelated.Wait().exit_code, 0);
  const WitnessLog log = witness.Stop();
  const OverlapVerdict v = JudgeOverlaps(log, records, kGrace);
  std::printf("one after the other: %s; %s\n", v.Summary().c_str(), ScanRate(log).c_str());
  for (const std::string& problem : v.problems()) ADD_FAILURE() << problem;
  EXPECT_EQ(v.processes, 4);
  EXPECT_EQ(v.jobs, 2);
  // Each fake worker lives 300 ms: a scan every few ms sees it many times.
  EXPECT_GT(log.scans, 20);
}

// A worker first seen before it leads its own process group (here a shell that waits 200 ms,
// then becomes a session leader with setsid and runs the job's shell): its later children
// are still its job's. This once lost a sleep under load (the group was never registered).
TEST(JobProcessWitness, AWorkerThatLeadsItsGroupOnlyLaterStillOwnsItsChildren) {
  JobProcessWitness witness(::getpid());
  v1::Job r;
  r.set_id("A");
  r.set_started_at(Now());
  Background worker("/bin/sh",
                    {"-c", "sleep 0.2; exec /usr/bin/setsid /bin/sh -c 'sleep 0.4; true' sh --job /state/jobs/A", "sh",
                     "--job", "/state/jobs/A"});
  EXPECT_EQ(worker.Wait(30).exit_code, 0);
  r.set_finished_at(Now());
  const OverlapVerdict v = JudgeOverlaps(witness.Stop(), {r}, kGrace);
  std::printf("group led later: %s\n", v.Summary().c_str());
  for (const std::string& problem : v.problems()) ADD_FAILURE() << problem;
  EXPECT_EQ(v.ran("sleep"), 1) << "the 0.4 s sleep of the job's shell (the 0.2 s one is not in its group)";
}

TEST(JobProcessWitness, AChildOutlivingItsWorkerIsCaught) {
  JobProcessWitness witness(::getpid());
  v1::Job r;
  r.set_id("A");
  r.set_started_at(Now());
  // The shell leaves its background sleep behind, in its process group, handed to init.
  FakeWorker worker("A", "sleep 1.2 & sleep 0.3");
  EXPECT_EQ(worker.Wait().exit_code, 0);
  r.set_finished_at(Now());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const OverlapVerdict v = JudgeOverlaps(witness.Stop(), {r}, kGrace);
  std::printf("orphan: %s\n", v.Summary().c_str());
  ASSERT_EQ(v.outside_run.size(), 1u) << v.Summary();
  EXPECT_NE(v.outside_run[0].find("(sleep) of job A was alive"), std::string::npos) << v.outside_run[0];
  EXPECT_TRUE(v.overlaps.empty());
}

}  // namespace
}  // namespace torchscan::e2e
