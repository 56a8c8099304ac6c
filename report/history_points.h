// What the history renderers (report/history_text.h, report/history_html.h) share: which jobs
// are points, each point's change against the previous one, where the machine changed and
// what changed, and the short forms of revisions and times. Pure; linear in the jobs.
//
// The order is the view's (newest first, as the History RPC gives it); nothing is re-sorted.
// "The previous point" of a point is the next older point in that order.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/history_view.h"

namespace torchscan::report {

// A succeeded job with a summary whose latency median is finite and positive.
bool IsHistoryPoint(const v1::Job& job);

struct HistoryRow {
  const v1::Job* job = nullptr;  // in the view's jobs
  bool point = false;            // IsHistoryPoint
  // Points only: (median - previous point's median) / previous point's median; absent for the
  // oldest point.
  std::optional<double> change;
  // Points only: 1-based number of the machine change at this point (its machine differs from
  // the previous point's); 0 when none.
  int machine_change = 0;
};

struct MachineChange {
  const v1::Job* before = nullptr;       // the older point
  const v1::Job* after = nullptr;        // the newer point, where the change is marked
  std::vector<std::string> differences;  // MachineDifferences(before, after)
};

struct HistoryRows {
  std::vector<HistoryRow> rows;                // one per job, newest first
  std::vector<const v1::Job*> points;          // oldest first
  std::vector<MachineChange> machine_changes;  // oldest first; number k is machine_changes[k - 1]
};

HistoryRows BuildHistoryRows(const HistoryView& view);

// What differs between two machine texts (ResultSummary.machine): for two keys as
// report/machine_key writes them, MachineKeyChanges ("BLAS: a -> b", one entry per field that
// differs). When either text holds no "=" (not a key), or the keys differ only in their order,
// one entry "machine: <before> -> <after>" with both texts whole. Equal texts: no entry.
std::vector<std::string> MachineDifferences(std::string_view before, std::string_view after);

// The first 12 code points of a revision when it is longer (a git hash's short form).
std::string ShortRevision(std::string_view revision);

// An RFC 3339 UTC time ("2026-12-01T08:41:21.123Z") as "2026-12-01 08:41 UTC"; any other text
// unchanged. ShortDate: just "2026-12-01" (other text unchanged).
std::string ShortTime(std::string_view rfc3339);
std::string ShortDate(std::string_view rfc3339);

// "3 jobs, 2 points (not plotted: 1 failed)": the jobs that are not points counted by
// NotPointText.
std::string HistoryCounts(const HistoryRows& rows);

// The state's name ("failed", "running" ...), and for a succeeded job that is not a point
// "succeeded, no figures".
std::string NotPointText(const v1::Job& job);

}  // namespace torchscan::report
