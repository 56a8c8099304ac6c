#include "tests/overlap_verdict.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/job_timeline.h"

namespace torchscan::e2e {
namespace {

// One process over all its sightings.
struct Seen {
  pid_t pid = 0;
  std::string job, program;
  double started_s = 0, first_s = 0, last_s = 0;
};

std::string Name(const Seen& p) { return absl::StrCat("pid ", p.pid, " (", p.program, ") of job ", p.job); }

std::string Name(const Sighting& s) { return absl::StrCat("pid ", s.pid, " (", s.program, ") of job ", s.job); }

}  // namespace

std::string OverlapVerdict::Summary() const {
  std::string programs;
  for (const auto& [program, n] : by_program)
    absl::StrAppend(&programs, programs.empty() ? "" : ", ", program, " x", n);
  return absl::StrFormat(
      "%d scans, %d processes (%s) of %d jobs; %d overlaps, %d outside their job's run, %d of "
      "unknown jobs",
      scans, processes, programs, jobs, overlaps.size(), outside_run.size(), unknown_jobs.size());
}

std::vector<std::string> OverlapVerdict::problems() const {
  std::vector<std::string> all = overlaps;
  all.insert(all.end(), outside_run.begin(), outside_run.end());
  all.insert(all.end(), unknown_jobs.begin(), unknown_jobs.end());
  return all;
}

OverlapVerdict JudgeOverlaps(const WitnessLog& log, const std::vector<v1::Job>& records, double grace_s) {
  OverlapVerdict verdict;
  verdict.scans = log.scans;

  std::map<std::pair<pid_t, double>, Seen> processes;  // by pid and start time
  std::map<int, std::vector<const Sighting*>> scans;
  for (const Sighting& s : log.sightings) {
    scans[s.scan].push_back(&s);
    Seen& p = processes[{s.pid, s.started_s}];
    if (p.pid == 0) {
      p = {s.pid, s.job, s.program, s.started_s, s.at_s, s.at_s};
    } else {
      p.first_s = std::min(p.first_s, s.at_s);
      p.last_s = std::max(p.last_s, s.at_s);
      p.program = s.program;  // after exec, the program it became
    }
  }
  std::set<std::string> jobs;
  for (const auto& [key, p] : processes) {
    ++verdict.by_program[p.program];
    jobs.insert(p.job);
  }
  verdict.processes = static_cast<int>(processes.size());
  verdict.jobs = static_cast<int>(jobs.size());

  // Rules 1 and 2, reported once per pair of jobs.
  std::set<std::pair<std::string, std::string>> pairs;
  auto report = [&](std::string a, std::string b, const std::string& sentence) {
    if (a > b) std::swap(a, b);
    if (pairs.insert({a, b}).second) verdict.overlaps.push_back(sentence);
  };
  for (const auto& [scan, seen] : scans) {
    for (const Sighting* a : seen)
      for (const Sighting* b : seen)
        if (a->job < b->job)
          report(a->job, b->job, absl::StrCat("scan ", scan, " saw ", Name(*a), " and ", Name(*b), " alive at once"));
  }
  for (const auto& [ka, a] : processes) {
    for (const auto& [kb, b] : processes) {
      if (!(a.job < b.job)) continue;
      const double from = std::max(a.started_s, b.started_s) + log.tick_s;
      const double to = std::min(a.last_s, b.last_s);
      if (from < to)
        report(a.job, b.job,
               absl::StrFormat("%s and %s were both alive for at least %.1f ms (from their start times to their "
                               "last sightings)",
                               Name(a), Name(b), (to - from) * 1e3));
    }
  }

  // Rules 3, 4 and 5.
  std::map<std::string, const v1::Job*> by_id;
  for (const v1::Job& job : records) by_id[job.id()] = &job;
  std::set<std::string> unknown;
  for (const auto& [key, p] : processes) {
    auto record = by_id.find(p.job);
    if (record == by_id.end()) {
      if (unknown.insert(p.job).second)
        verdict.unknown_jobs.push_back(absl::StrCat(Name(p), ": no job ", p.job, " in the daemon's records"));
      continue;
    }
    const double started = daemon::ParseRfc3339Seconds(record->second->started_at());
    const double finished = daemon::ParseRfc3339Seconds(record->second->finished_at());
    if (!std::isnan(finished) && p.last_s > finished + grace_s) {
      verdict.outside_run.push_back(absl::StrFormat("%s was alive %.1f ms after its job finished (finished_at %s)",
                                                    Name(p), (p.last_s - finished) * 1e3,
                                                    record->second->finished_at()));
    } else if (!std::isnan(started) && p.started_s + log.tick_s < started - grace_s) {
      verdict.outside_run.push_back(absl::StrFormat("%s started %.1f ms before its job did (started_at %s)", Name(p),
                                                    (started - p.started_s - log.tick_s) * 1e3,
                                                    record->second->started_at()));
    } else if (std::isnan(started)) {
      verdict.outside_run.push_back(absl::StrCat(Name(p), " ran, but the job's record has no started_at"));
    }
  }
  return verdict;
}

}  // namespace torchscan::e2e
