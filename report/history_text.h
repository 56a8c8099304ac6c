// A benchmark's history for a terminal (`torchscan-client history NAME`): the jobs of one name
// as a header, a sparkline of the medians and a table, from a HistoryView (report/history_view.h).
// Pure: no I/O, never fails; every string from the jobs is made terminal-safe (TerminalSafe).
//
// Layout:
//  - Header: the name, the source, how many jobs and points, and the range of the points'
//    finished dates (oldest .. newest). An empty history says "no jobs named NAME".
//  - Sparkline: one character per point, the medians oldest -> newest scaled between the
//    smallest and largest median shown (all equal: the middle level). unicode: "▁▂▃▄▅▆▇█";
//    ASCII: "_.-=#". At most kMaxSparklinePoints characters: with more points it shows the
//    newest ones and says so.
//  - Table, newest first: job id, finished (date and time, UTC), revision (the first 12
//    characters when longer, like a short git hash), model, median, IQR, the median's change
//    against the previous (older) point in %, the comparison's label for compare jobs
//    (Job.latency_change), and in the machine column the Slurm node that ran the point (a
//    front's job: ResultSummary.node) and "changed #k" where the point's machine differs from
//    the previous point's (k numbers the changes, oldest first; nodes of one kind are one
//    machine to the history, nodes of another kind a change). Jobs that are
//    not points (history_view.h) show their state instead of figures. `max_rows` > 0 lists
//    only the newest max_rows jobs and says how many were left out; the sparkline and the
//    machine changes still cover every point.
//  - Machine changes, below the table: one line per change, "#k OLDER_JOB -> NEWER_JOB: what
//    differs" (report/history_points.h MachineDifferences: the "key=value; ..." machine texts
//    compared key by key, or both texts whole when they are not in that form).
// ASCII output (unicode = false) writes "us" for "µs" and the ASCII sparkline; user text is
// passed through as it is (made terminal-safe, not transliterated).
#pragma once

#include <string>
#include <vector>

#include "report/history_view.h"

namespace torchscan::report {

inline constexpr int kMaxSparklinePoints = 60;
inline constexpr int kAllHistoryRows = 0;

std::string RenderHistoryText(const HistoryView& view, bool unicode, int max_rows = kAllHistoryRows);

// The sparkline of `values` (oldest first), one character per value, without any limit:
// each value's level is round((v - min) / (max - min) * (levels - 1)); all values equal (or one
// value): the middle level (levels / 2, 0-based). Non-finite values become ' '.
std::string Sparkline(const std::vector<double>& values, bool unicode);

}  // namespace torchscan::report
