#include "report/timeline_text.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "core/number_format.h"

namespace torchscan::report {
namespace {

std::string Column(const std::string& phase) {
  if (phase.size() <= static_cast<size_t>(kMaxPhaseColumn)) return phase;
  return phase.substr(0, kMaxPhaseColumn - 3) + "...";
}

// `text` right-aligned in `width` columns, counting UTF-8 characters ("µs" is one column
// narrower in bytes than it looks).
std::string Right(const std::string& text, int width) {
  int columns = 0;
  for (unsigned char c : text) columns += (c & 0xC0) != 0x80;
  return std::string(std::max(width - columns, 0), ' ') + text;
}

std::string Seconds(double s) { return Right(std::isfinite(s) ? FormatSeconds(s) : "?", 10); }

}  // namespace

std::string TimelineText(const v1::Timeline& timeline, const std::string& indent) {
  if (timeline.spans().empty()) return "";
  int width = 5;  // "phase"
  for (const v1::PhaseSpan& s : timeline.spans()) width = std::max(width, static_cast<int>(Column(s.phase()).size()));
  std::string out = absl::StrFormat("%s%-*s  %10s  %10s\n", indent, width, "phase", "start", "duration");
  for (const v1::PhaseSpan& s : timeline.spans())
    absl::StrAppendFormat(&out, "%s%-*s  %s  %s\n", indent, width, Column(s.phase()), Seconds(s.start_s()),
                          Seconds(s.end_s() - s.start_s()));
  return out;
}

}  // namespace torchscan::report
