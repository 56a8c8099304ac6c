// An overlap witness owned by the test: a thread that samples /proc every couple of
// milliseconds for the processes of a daemon's jobs and writes down, for each scan, which of
// them were alive. It trusts nothing the daemon records; tests/overlap_verdict.h judges what
// it saw against the job records.
//
// A job process is
//   - a worker: a child of `daemon_pid` whose command line holds `--job DIR` (its job is
//     DIR's last component, the job id: torchscand runs `torchscan-worker --job
//     STATE/jobs/ID`), or a child of `daemon_pid` running `--spare` (the warm spare) once
//     it has a job: its job is the job folder of its stderr (/proc/PID/fd/2, the job's
//     worker.stderr); an idle spare belongs to no job (it waits, blocked, for one), or
//   - any process in a worker's process group (the launcher gives each worker a group of its
//     own: its RSS children, and whatever else it starts), attributed to that worker's job
//     even after the worker is gone and the process was handed to another parent. Those of
//     an idle spare's group (the RSS children it starts to wait beside it) belong to no job
//     until the spare has one, and then to its job from the first scan that sees that.
// A sandboxed daemon's warm spare (sandbox "namespaces") runs its job in a folder of its own
// (STATE/spare-job), which names no job: the witness cannot tell that job from outside, so the
// tests that use a witness run their daemon with --sandbox off (job order is the same).
// A child of the daemon between fork and exec (no `--job` yet) is looked at again in the next
// scan. Zombies (state Z or X) are dead and never count as alive. Processes of other users are
// seen too (/proc/PID/stat and cmdline are world-readable), except where /proc is mounted
// with hidepid.
//
// What sampling can miss: a process that lives less than one scan interval and overlaps
// nothing for longer than that. Each sighting carries the process's start time from the
// kernel (/proc/PID/stat, one clock tick, 10 ms here), which lets the verdict also catch an
// overlap that fell between two scans when both processes were seen at some point.
//
// Cost: a scan lists /proc and reads /proc/PID/stat only for processes it has not seen
// before and for the daemon's children and job processes; a process found unrelated is
// skipped until its pid leaves /proc (a pid reused between two consecutive scans would need
// pid_max forks within one interval).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace torchscan::e2e {

// One job process seen alive in one scan.
struct Sighting {
  int scan = 0;     // which scan saw it (0, 1, ...)
  double at_s = 0;  // CLOCK_REALTIME (seconds since the epoch) read just before its stat:
                    // the process was alive at some moment at or after this
  pid_t pid = 0;
  std::string job;       // the job id
  std::string program;   // its executable's file name ("torchscan-worker", "torchscan_rss_child")
  double started_s = 0;  // its start (CLOCK_REALTIME seconds), rounded down to a clock tick; for a
                         // warm spare the start of the first scan that saw it with its job (it
                         // started, loaded and waited before: none of that was its job's)
};

// Everything the witness saw.
struct WitnessLog {
  int scans = 0;            // scans completed
  double first_scan_s = 0;  // CLOCK_REALTIME of the first and last scan
  double last_scan_s = 0;
  double busy_s = 0;                // time spent scanning, all scans together
  double tick_s = 0.01;             // the kernel's clock tick (start times are rounded down to it)
  std::vector<Sighting> sightings;  // in scan order
};

// "a scan every 2.7 ms on average, 0.26 ms each" (for a test's printed figures).
std::string ScanRate(const WitnessLog& log);

class JobProcessWitness {
 public:
  // Starts sampling at once, every `interval_s` (after each scan ends) until Stop().
  explicit JobProcessWitness(pid_t daemon_pid, double interval_s = 0.002);
  ~JobProcessWitness();  // Stop()
  JobProcessWitness(const JobProcessWitness&) = delete;
  JobProcessWitness& operator=(const JobProcessWitness&) = delete;

  // Runs one last scan, stops the thread and returns the log. Idempotent.
  WitnessLog Stop();

 private:
  // What one pid was found to be.
  struct Known {
    unsigned long long start_ticks = 0;  // with the pid, names the process
    enum class Kind { kUnrelated, kPending, kJob } kind = Kind::kUnrelated;
    std::string job;      // kJob
    std::string program;  // kJob: its executable's file name, as last read
    // A spare, or a process of an idle spare's group (its waiting RSS children): when it was
    // first seen with its job (it started and waited before: none of that was the job's);
    // else -1.
    double job_since_s = -1;
  };
  void Loop();
  void Scan();

  const pid_t daemon_pid_;
  const double interval_s_;
  // Kernel start times count from boot (CLOCK_BOOTTIME); adding this gives CLOCK_REALTIME.
  // Taken once, so that one process keeps one start time in every sighting.
  double boot_to_real_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  WitnessLog log_;
  std::map<pid_t, Known> known_;             // sampler thread only
  std::map<pid_t, std::string> group_jobs_;  // worker process group -> job id; sampler thread only
  std::set<pid_t> idle_spare_groups_;        // groups of spares with no job yet; sampler thread only
  std::thread thread_;
  bool stopped_ = false;
};

}  // namespace torchscan::e2e
