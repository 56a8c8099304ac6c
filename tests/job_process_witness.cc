#include "tests/job_process_witness.h"

#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace torchscan::e2e {
namespace {

double Seconds(clockid_t clock) {
  timespec t{};
  ::clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + t.tv_nsec * 1e-9;
}

// The fields of /proc/PID/stat the witness needs.
struct Stat {
  char state = '?';
  pid_t ppid = 0;
  pid_t pgid = 0;
  unsigned long long start_ticks = 0;  // since boot (CLOCK_BOOTTIME)
  std::string comm;
};

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// False when the process is gone (or the line cannot be read).
bool ReadStat(pid_t pid, Stat* stat) {
  const std::string text = ReadSmallFile("/proc/" + std::to_string(pid) + "/stat");
  // "PID (COMM) STATE PPID PGRP ..."; COMM may hold spaces and parentheses: split at the last ')'.
  const size_t open = text.find('(');
  const size_t close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  stat->comm = text.substr(open + 1, close - open - 1);
  std::istringstream fields(text.substr(close + 1));
  std::string field;
  for (int index = 3; fields >> field; ++index) {  // proc(5) numbers the fields from 1; STATE is 3
    if (index == 3) stat->state = field.empty() ? '?' : field[0];
    if (index == 4) stat->ppid = static_cast<pid_t>(std::atol(field.c_str()));
    if (index == 5) stat->pgid = static_cast<pid_t>(std::atol(field.c_str()));
    if (index == 22) {
      stat->start_ticks = std::strtoull(field.c_str(), nullptr, 10);
      return true;
    }
  }
  return false;
}

// The job id of a worker's command line ("... --job STATE/jobs/ID ..."); "" when it has no
// --job.
std::string JobOfCommandLine(const std::string& cmdline) {
  std::vector<std::string> args;
  std::string arg;
  for (char c : cmdline) {
    if (c == '\0') {
      args.push_back(arg);
      arg.clear();
    } else {
      arg += c;
    }
  }
  if (!arg.empty()) args.push_back(arg);
  std::string dir;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--job" && i + 1 < args.size()) dir = args[i + 1];
    if (args[i].rfind("--job=", 0) == 0) dir = args[i].substr(6);
  }
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir.substr(dir.find_last_of('/') + 1);
}

// A warm spare's job (`torchscan-worker --spare`, which gets its job on stdin): the job
// folder of its stderr once it has a job (it then writes STATE/jobs/ID/worker.stderr, as
// /proc/PID/fd/2 shows); "" while it waits (its stderr is the state folder's
// spare-worker.stderr) or when that cannot be read.
std::string JobOfSpare(pid_t pid, const std::string& cmdline) {
  if (cmdline.find(std::string("\0--spare\0", 9)) == std::string::npos) return "";  // NUL-separated arguments
  char target[4096];
  const std::string link = "/proc/" + std::to_string(pid) + "/fd/2";
  const ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
  if (n <= 0) return "";
  const std::string path(target, static_cast<size_t>(n));
  const std::string suffix = "/worker.stderr";
  if (path.size() <= suffix.size() || path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0) return "";
  const std::string dir = path.substr(0, path.size() - suffix.size());
  return dir.substr(dir.find_last_of('/') + 1);
}

// The file name of its executable; "" when the link cannot be read (a process on its way
// out has released its memory map and executable already, before it becomes a zombie; a
// process that is not dumpable, to a reader without CAP_SYS_PTRACE).
std::string ExecutableOf(pid_t pid) {
  char target[4096];
  const std::string link = "/proc/" + std::to_string(pid) + "/exe";
  const ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
  if (n <= 0) return "";
  const std::string path(target, static_cast<size_t>(n));
  return path.substr(path.find_last_of('/') + 1);
}

std::vector<pid_t> ListPids() {
  std::vector<pid_t> pids;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return pids;
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0' && pid > 0) pids.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(proc);
  return pids;
}

}  // namespace

std::string ScanRate(const WitnessLog& log) {
  char text[96];
  std::snprintf(text, sizeof(text), "a scan every %.1f ms on average, %.2f ms each",
                (log.last_scan_s - log.first_scan_s) * 1e3 / std::max(1, log.scans - 1),
                log.busy_s * 1e3 / std::max(1, log.scans));
  return text;
}

JobProcessWitness::JobProcessWitness(pid_t daemon_pid, double interval_s)
    : daemon_pid_(daemon_pid), interval_s_(interval_s) {
  log_.tick_s = 1.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
  boot_to_real_ = Seconds(CLOCK_REALTIME) - Seconds(CLOCK_BOOTTIME);
  thread_ = std::thread([this] { Loop(); });
}

JobProcessWitness::~JobProcessWitness() { Stop(); }

WitnessLog JobProcessWitness::Stop() {
  if (!stopped_) {
    stop_ = true;
    thread_.join();
    Scan();  // the last word: after everything the test waited for
    stopped_ = true;
  }
  std::lock_guard<std::mutex> lock(mu_);
  return log_;
}

void JobProcessWitness::Loop() {
  while (!stop_) {
    Scan();
    std::this_thread::sleep_for(std::chrono::duration<double>(interval_s_));
  }
}

void JobProcessWitness::Scan() {
  const double scan_start = Seconds(CLOCK_REALTIME);
  struct Fresh {
    pid_t pid;
    Stat stat;
    double at_s;
  };
  std::vector<Fresh> looked_at;
  std::set<pid_t> present;
  for (pid_t pid : ListPids()) {
    present.insert(pid);
    auto known = known_.find(pid);
    if (known != known_.end() && known->second.kind == Known::Kind::kUnrelated) continue;
    Fresh f{pid, {}, Seconds(CLOCK_REALTIME)};
    if (!ReadStat(pid, &f.stat)) continue;  // gone since the listing
    if (known != known_.end() && known->second.start_ticks != f.stat.start_ticks) known_.erase(known);  // reused
    looked_at.push_back(f);
  }
  for (auto it = known_.begin(); it != known_.end();) it = present.count(it->first) ? std::next(it) : known_.erase(it);
  for (auto it = idle_spare_groups_.begin(); it != idle_spare_groups_.end();)
    it = present.count(*it) ? std::next(it) : idle_spare_groups_.erase(it);

  // Workers first (their groups name the jobs of the rest), then everything else not yet known.
  for (const Fresh& f : looked_at) {
    if (f.stat.ppid != daemon_pid_) continue;
    auto known = known_.find(f.pid);
    if (known != known_.end() && known->second.kind == Known::Kind::kJob) {
      // A worker seen before it led its own group (between fork and setsid/setpgid) names
      // its group's job once it does; else its children would be taken as unrelated.
      if (f.stat.pgid == f.pid) group_jobs_.emplace(f.pid, known->second.job);
      continue;
    }
    const std::string cmdline = ReadSmallFile("/proc/" + std::to_string(f.pid) + "/cmdline");
    std::string job = JobOfCommandLine(cmdline);
    double job_since_s = -1;
    if (job.empty()) {
      job = JobOfSpare(f.pid, cmdline);  // an idle spare: looked at again next scan
      job_since_s = f.at_s;
      if (job.empty() && f.stat.pgid == f.pid) idle_spare_groups_.insert(f.pid);
    }
    if (job.empty()) continue;
    idle_spare_groups_.erase(f.stat.pgid);
    known_[f.pid] = {f.stat.start_ticks, Known::Kind::kJob, job, "", job_since_s};
    if (f.stat.pgid == f.pid) group_jobs_[f.pid] = job;
  }
  for (const Fresh& f : looked_at) {
    Known& k = known_[f.pid];
    if (k.kind == Known::Kind::kJob) continue;
    k.start_ticks = f.stat.start_ticks;
    auto group = group_jobs_.find(f.stat.pgid);
    if (group != group_jobs_.end()) {
      // A process that waited in a spare's group before the spare had its job (its waiting RSS
      // children) counts for the job from when the spare was first seen with it.
      auto leader = known_.find(f.stat.pgid);
      const double started_s = static_cast<double>(f.stat.start_ticks) * log_.tick_s + boot_to_real_;
      if (leader != known_.end() && leader->second.job_since_s >= 0 && started_s < leader->second.job_since_s)
        k.job_since_s = leader->second.job_since_s;
      k.kind = Known::Kind::kJob;
      k.job = group->second;
    } else {
      // The daemon's child before exec, or a process of an idle spare's group: looked at
      // again next scan.
      k.kind = f.stat.ppid == daemon_pid_ || idle_spare_groups_.count(f.stat.pgid) ? Known::Kind::kPending
                                                                                   : Known::Kind::kUnrelated;
    }
  }

  std::vector<Sighting> seen;
  std::set<pid_t> live_groups;
  for (const Fresh& f : looked_at) {
    Known& k = known_.at(f.pid);
    if (k.kind != Known::Kind::kJob) continue;
    live_groups.insert(f.stat.pgid);  // a zombie still holds its group's id
    if (f.stat.state == 'Z' || f.stat.state == 'X') continue;
    // The program it runs now (it changes at exec); when unreadable, the last one read, else
    // its comm (cut at 15 characters).
    if (std::string program = ExecutableOf(f.pid); !program.empty()) k.program = program;
    seen.push_back(
        {0, f.at_s, f.pid, k.job, k.program.empty() ? f.stat.comm : k.program,
         k.job_since_s >= 0 ? k.job_since_s : static_cast<double>(f.stat.start_ticks) * log_.tick_s + boot_to_real_});
  }
  // A group with no member left is over; its id may be reused by anyone.
  for (auto it = group_jobs_.begin(); it != group_jobs_.end();)
    it = live_groups.count(it->first) ? std::next(it) : group_jobs_.erase(it);

  const double scan_end = Seconds(CLOCK_REALTIME);
  std::lock_guard<std::mutex> lock(mu_);
  for (Sighting& s : seen) {
    s.scan = log_.scans;
    log_.sightings.push_back(std::move(s));
  }
  if (log_.scans == 0) log_.first_scan_s = scan_start;
  log_.last_scan_s = scan_start;
  log_.busy_s += scan_end - scan_start;
  ++log_.scans;
}

}  // namespace torchscan::e2e
