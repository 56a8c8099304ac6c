#include "report/history_text.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/number_format.h"
#include "report/escaping.h"
#include "report/history_points.h"
#include "report/text_table.h"

namespace torchscan::report {
namespace {

// A time in our units; ASCII output writes "us" for "µs".
std::string Seconds(double seconds, bool unicode) {
  std::string text = FormatSeconds(seconds);
  if (const size_t mu = text.find("\u00b5"); !unicode && mu != std::string::npos) text.replace(mu, 2, "u");
  return text;
}

constexpr const char* kUnicodeLevels[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                          "\u2585", "\u2586", "\u2587", "\u2588"};
constexpr const char* kAsciiLevels[] = {"_", ".", "-", "=", "#"};

// One table row's cells: job, finished, revision, model, baseline (a compare job's baseline
// median), median, IQR, change, label, machine.
using Cells = std::vector<std::string>;
const std::vector<bool> kRightAligned = {false, false, false, false, true, true, true, true, false, false};

Cells RowCells(const HistoryRow& row, bool unicode) {
  const v1::Job& job = *row.job;
  Cells c(kRightAligned.size());
  c[0] = TerminalSafe(job.id());
  c[1] = job.finished_at().empty() ? "-" : TerminalSafe(ShortTime(job.finished_at()));
  c[2] = job.spec().revision().empty() ? "-" : TerminalSafe(ShortRevision(job.spec().revision()));
  if (!row.point) {
    c[3] = TerminalSafe(NotPointText(job));
    return c;
  }
  const v1::ResultSummary& s = job.summary();
  c[3] = TerminalSafe(s.model());
  c[4] = s.has_baseline_latency() ? Seconds(s.baseline_latency().median_s(), unicode) : "";
  c[5] = Seconds(s.latency().median_s(), unicode);
  c[6] = Seconds(s.latency().iqr_s(), unicode);
  c[7] = row.change ? FormatPercent(*row.change) : "";
  c[8] = job.spec().has_compare() ? TerminalSafe(job.latency_change()) : "";
  // A Slurm front's point names its node: one history, many nodes.
  const std::string change = row.machine_change > 0 ? absl::StrCat("changed #", row.machine_change) : "";
  c[9] = s.node().empty() ? change : absl::StrCat(TerminalSafe(s.node()), change.empty() ? "" : ", ", change);
  return c;
}

void Table(const HistoryRows& rows, int max_rows, bool unicode, std::string* out) {
  const size_t listed = max_rows > 0 ? std::min(rows.rows.size(), static_cast<size_t>(max_rows)) : rows.rows.size();
  std::vector<Cells> table;
  table.reserve(listed + 1);
  table.push_back({"job", "finished", "revision", "model", "baseline", "median", "IQR", "change", "label", "machine"});
  for (size_t i = 0; i < listed; ++i) table.push_back(RowCells(rows.rows[i], unicode));
  absl::StrAppend(out, TextTable(table, kRightAligned, "  "));
  if (listed < rows.rows.size())
    absl::StrAppend(out, "  (the newest ", FormatCount(static_cast<int64_t>(listed)), " of ",
                    FormatCount(static_cast<int64_t>(rows.rows.size())), " jobs listed)\n");
}

}  // namespace

std::string Sparkline(const std::vector<double>& values, bool unicode) {
  const int levels = unicode ? 8 : 5;
  double lo = INFINITY, hi = -INFINITY;
  for (double v : values)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  std::string out;
  for (double v : values) {
    if (!std::isfinite(v)) {
      out += ' ';
      continue;
    }
    const int level = hi > lo ? static_cast<int>(std::lround((v - lo) / (hi - lo) * (levels - 1))) : levels / 2;
    out += unicode ? kUnicodeLevels[level] : kAsciiLevels[level];
  }
  return out;
}

std::string RenderHistoryText(const HistoryView& view, bool unicode, int max_rows) {
  std::string out;
  if (view.jobs.empty()) {
    absl::StrAppend(&out, "TorchScan history: no jobs named \"", TerminalSafe(view.name), "\"",
                    view.source.empty() ? "" : " at " + TerminalSafe(view.source), "\n");
    return out;
  }
  const HistoryRows rows = BuildHistoryRows(view);
  out.reserve(200 + rows.rows.size() * 120);
  absl::StrAppend(&out, "TorchScan history: ", TerminalSafe(view.name), "\n");
  if (!view.source.empty()) absl::StrAppend(&out, "  source   ", TerminalSafe(view.source), "\n");
  absl::StrAppend(&out, "  jobs     ", HistoryCounts(rows), "\n");
  if (!rows.points.empty()) {
    const v1::Job& oldest = *rows.points.front();
    const v1::Job& newest = *rows.points.back();
    absl::StrAppend(&out, "  dates    ", TerminalSafe(ShortDate(oldest.finished_at())), " .. ",
                    TerminalSafe(ShortDate(newest.finished_at())), "\n");
    const size_t shown = std::min(rows.points.size(), static_cast<size_t>(kMaxSparklinePoints));
    std::vector<double> medians;
    medians.reserve(shown);
    for (size_t i = rows.points.size() - shown; i < rows.points.size(); ++i)
      medians.push_back(rows.points[i]->summary().latency().median_s());
    const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
    absl::StrAppend(&out, "  medians  ", Sparkline(medians, unicode), "  oldest -> newest, ", Seconds(*lo, unicode),
                    " .. ", Seconds(*hi, unicode),
                    shown < rows.points.size()
                        ? absl::StrCat(" (the newest ", shown, " of ",
                                       FormatCount(static_cast<int64_t>(rows.points.size())), " points)")
                        : "",
                    "\n");
  }
  out += "\n";
  Table(rows, max_rows, unicode, &out);
  if (!rows.machine_changes.empty()) {
    absl::StrAppend(&out, "\n  machine changes (they break comparability):\n");
    for (size_t k = 0; k < rows.machine_changes.size(); ++k) {
      const MachineChange& change = rows.machine_changes[k];
      absl::StrAppend(&out, "  #", k + 1, " ", TerminalSafe(change.before->id()), " -> ",
                      TerminalSafe(change.after->id()), ": ", TerminalSafe(absl::StrJoin(change.differences, "; ")),
                      "\n");
    }
  }
  return out;
}

}  // namespace torchscan::report
