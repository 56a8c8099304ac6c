#include "daemon/job_timeline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <utility>

namespace torchscan::daemon {

double ParseRfc3339Seconds(const std::string& text) {
  std::tm tm{};
  int ms = 0;
  char z = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &ms, &z) != 8 ||
      z != 'Z')
    return NAN;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(::timegm(&tm)) + ms / 1000.0;
}

int CountOverlappingExecutions(const std::vector<v1::Job>& jobs) {
  std::vector<std::pair<double, double>> runs;  // (started, finished)
  for (const v1::Job& job : jobs) {
    const double started = ParseRfc3339Seconds(job.started_at());
    const double finished = ParseRfc3339Seconds(job.finished_at());
    if (!std::isnan(started) && !std::isnan(finished)) runs.emplace_back(started, finished);
  }
  std::sort(runs.begin(), runs.end());
  int overlaps = 0;
  double latest_finish = -INFINITY;
  for (const auto& [started, finished] : runs) {
    if (started < latest_finish) ++overlaps;
    latest_finish = std::max(latest_finish, finished);
  }
  return overlaps;
}

double VmRssMiB(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  return -1;
}

}  // namespace torchscan::daemon
