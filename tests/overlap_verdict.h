// Judges what a JobProcessWitness saw (tests/job_process_witness.h) against the daemon's job
// records: were the jobs' processes ever alive at once, or alive outside their job's
// recorded run? Pure: no /proc, no clock; tested with made-up logs.
//
// Rules, each reported as one sentence naming the pids, programs and jobs:
//   1. one scan saw processes of two different jobs alive;
//   2. two processes of different jobs were both alive over an interval longer than a clock
//      tick, from their kernel start times (rounded down to a tick) to their last sightings:
//      an overlap that fell between scans;
//   3. a process was seen more than `grace_s` after its job's recorded finished_at (a job
//      still running or never finished has no such bound);
//   4. a process started, by its kernel start time, more than `grace_s` plus one tick before
//      its job's recorded started_at (a worker started before its job did, or clocks that
//      disagree: either way the witness cannot vouch for the run);
//   5. a process of a job that has no record.
// Records come as v1::Job (started_at/finished_at are CLOCK_REALTIME rounded down to 1 ms by
// the daemon): grace_s must be at least 0.001.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "proto/service.pb.h"
#include "tests/job_process_witness.h"

namespace torchscan::e2e {

// The grace end-to-end tests give a daemon's records. finished_at is written after the daemon
// reaped the worker (which reaps its RSS children first), and times are CLOCK_REALTIME
// rounded down to 1 ms, so 1 ms would do; 5 ms leaves room for the wall clock being slewed
// between the daemon's reading and the witness's (NTP slews at most 0.5 ms per second) and
// is still far shorter than any process that outlives its job (an RSS child loads LibTorch:
// hundreds of ms).
constexpr double kRecordGraceS = 0.005;

struct OverlapVerdict {
  int scans = 0;                               // the log's scans
  int processes = 0;                           // distinct job processes seen (pid and start time)
  std::map<std::string, int> by_program;       // of them, how many ran each program
  int jobs = 0;                                // distinct jobs they belonged to
  std::vector<std::string> overlaps;           // rules 1 and 2, one per pair of jobs
  std::vector<std::string> outside_run;        // rules 3 and 4, one per process
  std::vector<std::string> unknown_jobs;       // rule 5, one per job
  int ran(const std::string& program) const {  // by_program's count; 0 when absent
    auto it = by_program.find(program);
    return it == by_program.end() ? 0 : it->second;
  }
  bool ok() const { return overlaps.empty() && outside_run.empty() && unknown_jobs.empty(); }
  std::vector<std::string> problems() const;  // overlaps, outside_run and unknown_jobs in turn
  // "N scans, M processes (torchscan-worker x A, torchscan_rss_child x B) of J jobs, O overlaps, ..."
  std::string Summary() const;
};

OverlapVerdict JudgeOverlaps(const WitnessLog& log, const std::vector<v1::Job>& records, double grace_s);

}  // namespace torchscan::e2e
