#include "report/history_points.h"

#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/number_format.h"
#include "report/machine_key.h"

namespace torchscan::report {
namespace {

std::string Sv(std::string_view text) { return std::string(text); }

bool LooksLikeRfc3339(std::string_view text) {
  return text.size() >= 16 && text[4] == '-' && text[7] == '-' && text[10] == 'T' && text[13] == ':';
}

}  // namespace

bool IsHistoryPoint(const v1::Job& job) {
  const double median = job.summary().latency().median_s();
  return job.state() == v1::Job::succeeded && job.has_summary() && std::isfinite(median) && median > 0;
}

HistoryRows BuildHistoryRows(const HistoryView& view) {
  HistoryRows out;
  out.rows.reserve(view.jobs.size());
  for (const v1::Job& job : view.jobs) {
    HistoryRow row;
    row.job = &job;
    row.point = IsHistoryPoint(job);
    out.rows.push_back(row);
  }
  // Oldest first: each point against the one before it.
  HistoryRow* previous = nullptr;
  for (auto it = out.rows.rbegin(); it != out.rows.rend(); ++it) {
    if (!it->point) continue;
    out.points.push_back(it->job);
    if (previous) {
      const v1::ResultSummary& now = it->job->summary();
      const v1::ResultSummary& before = previous->job->summary();
      it->change = (now.latency().median_s() - before.latency().median_s()) / before.latency().median_s();
      if (now.machine() != before.machine()) {
        out.machine_changes.push_back({previous->job, it->job, MachineDifferences(before.machine(), now.machine())});
        it->machine_change = static_cast<int>(out.machine_changes.size());
      }
    }
    previous = &*it;
  }
  return out;
}

std::vector<std::string> MachineDifferences(std::string_view before, std::string_view after) {
  if (before == after) return {};
  std::vector<std::string> out;
  // A text without "=" is not a machine key (a job from elsewhere): shown whole.
  if (before.find('=') != std::string_view::npos && after.find('=') != std::string_view::npos)
    out = MachineKeyChanges(Sv(before), Sv(after));
  if (out.empty()) out.push_back(absl::StrCat("machine: ", Sv(before), " -> ", Sv(after)));  // e.g. order only
  return out;
}

std::string ShortRevision(std::string_view revision) {
  size_t points = 0;
  for (size_t i = 0; i < revision.size(); ++i)
    if ((static_cast<unsigned char>(revision[i]) & 0xC0) != 0x80 && points++ == 12) return Sv(revision.substr(0, i));
  return Sv(revision);
}

std::string ShortTime(std::string_view text) {
  if (!LooksLikeRfc3339(text) || text.back() != 'Z') return Sv(text);
  return absl::StrCat(Sv(text.substr(0, 10)), " ", Sv(text.substr(11, 5)), " UTC");
}

std::string ShortDate(std::string_view text) { return LooksLikeRfc3339(text) ? Sv(text.substr(0, 10)) : Sv(text); }

std::string HistoryCounts(const HistoryRows& rows) {
  std::map<std::string, int> others;
  for (const HistoryRow& row : rows.rows)
    if (!row.point) ++others[NotPointText(*row.job)];
  std::string text = absl::StrCat(
      FormatCount(static_cast<int64_t>(rows.rows.size())), rows.rows.size() == 1 ? " job, " : " jobs, ",
      FormatCount(static_cast<int64_t>(rows.points.size())), rows.points.size() == 1 ? " point" : " points");
  if (!others.empty()) {
    std::string list;
    for (const auto& [what, n] : others) absl::StrAppend(&list, list.empty() ? "" : ", ", n, " ", what);
    absl::StrAppend(&text, " (not plotted: ", list, ")");
  }
  return text;
}

std::string NotPointText(const v1::Job& job) {
  if (job.state() == v1::Job::succeeded) return "succeeded, no figures";
  return v1::Job::State_Name(job.state());
}

}  // namespace torchscan::report
