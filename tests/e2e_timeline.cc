#include "tests/e2e_timeline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <regex>
#include <sstream>

namespace torchscan::e2e {

std::vector<v1::PhaseSpan> Spans(const v1::Timeline& timeline, const std::string& phase) {
  std::vector<v1::PhaseSpan> spans;
  for (const v1::PhaseSpan& span : timeline.spans())
    if (span.phase() == phase || span.phase().rfind(phase + " ", 0) == 0) spans.push_back(span);
  return spans;
}

std::vector<std::string> PhaseNames(const v1::Timeline& timeline) {
  std::vector<std::string> names;
  for (const v1::PhaseSpan& span : timeline.spans()) names.push_back(span.phase());
  return names;
}

double FirstStart(const std::vector<v1::PhaseSpan>& spans) {
  double first = std::numeric_limits<double>::quiet_NaN();
  for (const v1::PhaseSpan& span : spans) first = std::isnan(first) ? span.start_s() : std::min(first, span.start_s());
  return first;
}

double LastEnd(const std::vector<v1::PhaseSpan>& spans) {
  double last = std::numeric_limits<double>::quiet_NaN();
  for (const v1::PhaseSpan& span : spans) last = std::isnan(last) ? span.end_s() : std::max(last, span.end_s());
  return last;
}

double TotalSeconds(const std::vector<v1::PhaseSpan>& spans) {
  double total = 0;
  for (const v1::PhaseSpan& span : spans) total += span.end_s() - span.start_s();
  return total;
}

std::vector<std::string> AnnouncedPhases(const std::string& client_stderr) {
  static const std::regex kRunning(R"(^\[[^\]]+\] running: ([^,]+)(, \d+ blocks)?$)");
  std::vector<std::string> phases;
  std::istringstream lines(client_stderr);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, kRunning)) continue;
    const std::string phase = m[1].str();
    if (phase == "starting worker" || phase == "write result") continue;
    if (phases.empty() || phases.back() != phase) phases.push_back(phase);
  }
  return phases;
}

bool IsSubsequence(const std::vector<std::string>& part, const std::vector<std::string>& whole) {
  auto at = whole.begin();
  for (const std::string& p : part) {
    at = std::find(at, whole.end(), p);
    if (at == whole.end()) return false;
    ++at;
  }
  return true;
}

}  // namespace torchscan::e2e
