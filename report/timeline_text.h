// A phase timeline (proto Timeline) as plain text lines for a terminal, e.g. `jobs show`:
//   "  phase                 start    duration"
//   "  queue wait              0 s    12.50 ms"
//   "  timing baseline     1.250 s    250.0 ms"
// one line per span in order, the phase column as wide as the longest name (at most
// kMaxPhaseColumn characters; longer names are cut with "..."), times by FormatSeconds, each
// line starting with `indent` and ending with "\n"; the time columns count characters, not
// bytes, so "µs" stays aligned. Spans with a start or end that is not
// finite are shown with "?" for what cannot be computed. No spans: "".
#pragma once

#include <string>

#include "proto/report.pb.h"

namespace torchscan::report {

inline constexpr int kMaxPhaseColumn = 40;

std::string TimelineText(const v1::Timeline& timeline, const std::string& indent);

}  // namespace torchscan::report
